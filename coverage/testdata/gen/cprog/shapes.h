/* shapes.h: an inline helper, compiled into both translation units, so the
 * LCOV tracefile lists this header under several records. */
static inline int clamp(int x, int lo, int hi)
{
	if (x < lo)
		return lo;
	if (x > hi)
		return hi;
	return x;
}
