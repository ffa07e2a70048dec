// Package containertest runs gcloop's released image (Dockerfile.release,
// built from a static binary with no pull) the way the Actions runner runs
// a Docker action — its `docker run` arguments, mounts and file commands —
// against the in-process fake GitHub, as root and as the runner's user.
//
// The tests need a Docker daemon (DOCKER_HOST). Without one they skip with
// a message; with GCLOOP_CONTAINER_TESTS=1 (set by .ci/run) a missing daemon
// fails them. It has no code of its own.
package containertest
