const { add, mul, name } = require('./math');

describe('math', () => {
  test('adds two numbers', () => {
    expect(add(2, 3)).toBe(5);
  });

  test('multiplies two numbers', () => {
    expect(mul(2, 3)).toBe(6);
  });

  test.skip('divides two numbers', () => {
    expect(1 / 2).toBe(0.5);
  });

  test('reads a profile name', () => {
    expect(name({})).toBe('x');
  });

  test('waits for a slow promise', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }, 100);
});

test('calls the callback', () => {
  const cb = jest.fn();
  expect(cb).toHaveBeenCalled();
});
