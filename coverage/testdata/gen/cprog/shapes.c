#include "shapes.h"

int area(int w, int h)
{
	w = clamp(w, 0, 1000);
	h = clamp(h, 0, 1000);
	return w * h;
}

int perimeter(int w, int h)
{
	if (w < 0 || h < 0)
		return -1;
	return 2 * (w + h);
}

int unused(int x)
{
	int y = x * x;
	return y + 1;
}
