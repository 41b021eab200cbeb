package io.gpusched.event;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an optional record component that {@link JsonEventWriter} leaves out, name and all, when it is
 * empty, instead of writing {@code null} (or a boolean component, when it is {@code false}). For fields added after a format was published: a row without
 * the value is then byte for byte what readers of the older format saw, as the wire protocol's codec
 * writes it too.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface OmittedWhenEmpty {
}
