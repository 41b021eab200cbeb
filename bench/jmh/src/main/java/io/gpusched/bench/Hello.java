package io.gpusched.bench;

/** The JVM start-up floor: a hello world run with the launcher's JVM flags. */
public final class Hello {
    private Hello() {
    }

    public static void main(String[] args) {
        System.out.println("hello");
    }
}
