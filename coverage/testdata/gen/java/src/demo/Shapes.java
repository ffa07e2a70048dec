package demo;

/** A tiny class whose run covers part of it. */
public class Shapes {
    public static int area(int w, int h) {
        if (w < 0 || h < 0) {
            throw new IllegalArgumentException("negative size");
        }
        return w * h;
    }

    public static String describe(int w, int h) {
        if (w == h) {
            return "square";
        }
        return "rectangle";
    }

    /** An inner class: JaCoCo reports it under the same source file. */
    static class Unit {
        int scale(int x) {
            return x * 10;
        }
    }
}
