// A tiny module with a deliberate bug for the failing tests.
function add(a, b) {
  return a + b;
}

function mul(a, b) {
  return a * b + 1;
}

function name(user) {
  return user.profile.name;
}

module.exports = { add, mul, name };
