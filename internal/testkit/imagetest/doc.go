// Package imagetest holds the tests of gcloop's packaging: action.yml against
// the input and output contract (DESIGN §5.5–§5.6), the Dockerfile and its
// .dockerignore, the binary the image ships (fully static, runs in an empty
// root) and the workflows that use the action. It has no code of its own.
package imagetest
