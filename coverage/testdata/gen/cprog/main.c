#include <stdio.h>
#include "shapes.h"

int area(int w, int h);
int perimeter(int w, int h);

int main(int argc, char **argv)
{
	int w = clamp(argc, 1, 3);
	printf("%d\n", area(w, 4));
	if (argc > 5)
		printf("%d\n", perimeter(w, -1));
	printf("%d\n", perimeter(w, 2));
	return 0;
}
