package io.gpusched.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Replaces the JVM's handling of a signal ({@code INT}, {@code TERM}, {@code HUP}) with an action of
 * ours, through {@code sun.misc.Signal} (module {@code jdk.unsupported}, exported for exactly this). It
 * is reached reflectively: compiled against directly, javac warns that it is internal, and the build
 * fails on warnings. A handled signal no longer runs the shutdown hooks or ends the JVM.
 */
final class Signals {
    private Signals() {
    }

    /**
     * @param name the signal's name without {@code SIG}
     * @param action what to do when it arrives, on a thread of the JVM's
     * @return whether the handler was installed (false on a JVM without {@code sun.misc.Signal})
     */
    static boolean handle(String name, Runnable action) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            Object h = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {handler}, (proxy, m, args) -> {
                if (m.getName().equals("handle")) {
                    action.run();
                    return null;
                }
                return switch (m.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> "gpusched signal handler";
                };
            });
            Method handle = signal.getMethod("handle", signal, handler);
            handle.invoke(null, signal.getConstructor(String.class).newInstance(name), h);
            return true;
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return false;
        }
    }
}
