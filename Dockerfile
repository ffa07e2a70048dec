# gcloop's GitHub Action image: a static binary and the CA bundle on
# scratch, nothing else (no shell, no libc, no git). The binary is built
# with -tags nobot: the action never runs the bot, whose server parts
# (PostgreSQL, Prometheus, websockets) would double the image.
#
# Two files, one final stage. This one builds from source: the runner builds
# it for `uses: gcloop/gcloop@main` (action.yml on main says `image:
# Dockerfile`). Dockerfile.release takes prebuilt static binaries instead:
# the release workflow builds them with `go build` and publishes that image,
# and the container tests build it here with no pulls. Their final stages
# are the same instructions (internal/testkit/imagetest checks it).

FROM golang:1.26-bookworm AS build
# Set by whoever builds (a tag such as v1.2.0); empty reports "devel".
ARG VERSION=
ENV CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly
WORKDIR /src
# Module downloads change less often than the code: their own layer.
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
RUN CGO_ENABLED=0 go build -tags nobot -trimpath -ldflags "-s -w -X github.com/gcloop/gcloop/cmd/gcloop/internal/cli.version=${VERSION}" -o /out/gcloop ./cmd/gcloop
# The build image's Debian CA bundle, beside the binary.
RUN cp /etc/ssl/certs/ca-certificates.crt /out/ca-certificates.crt

# The image. No USER and no WORKDIR: the runner mounts the workspace and
# picks the user and the working directory (GitHub's Docker action rules).
FROM scratch
COPY --from=build /out/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/gcloop /gcloop
ENTRYPOINT ["/gcloop"]
