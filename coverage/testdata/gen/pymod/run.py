import geometry

assert geometry.area(2, 3) == 6
assert geometry.describe(2, 2) == "square"
