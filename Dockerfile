# gcloop's GitHub Action image (DESIGN §1, §12): a static binary on a
# minimal base that holds CA certificates and nothing else. The runner builds
# this file for `uses: gcloop/gcloop@<ref>`; the release workflow publishes
# the same image to ghcr.io. internal/imagetest builds the binary with the
# same command and checks that it is static and runs in an empty root.

FROM golang:1.26-bookworm AS build
# Set by the release workflow (a tag such as v1.2.0); empty reports "devel".
ARG VERSION=
ENV CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly
WORKDIR /src
# Module downloads change less often than the code: their own layer.
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/gcloop/gcloop/cmd/gcloop/internal/cli.version=${VERSION}" -o /out/gcloop ./cmd/gcloop

# distroless/static: CA certificates, /etc/passwd and tzdata; no shell, no
# libc, no git. No USER and no WORKDIR: the runner mounts the workspace and
# runs the container as it needs (GitHub's Docker action rules).
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/gcloop /gcloop
ENTRYPOINT ["/gcloop"]
