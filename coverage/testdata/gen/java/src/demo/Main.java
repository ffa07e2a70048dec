package demo;

public class Main {
    public static void main(String[] args) {
        System.out.println(Shapes.area(2, 3));
        System.out.println(Shapes.describe(2, 2));
    }
}
