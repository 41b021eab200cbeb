/**
 * The service protocol ({@code PROTOCOL.md}, version {@value io.gpusched.protocol.ProtocolCodec#VERSION}) as
 * typed values and one explicit codec: every request a client sends ({@link io.gpusched.protocol.Request}),
 * every line the service answers ({@link io.gpusched.protocol.Answer}, with the queue's rows in
 * {@link io.gpusched.protocol.QueueView} and {@link io.gpusched.protocol.Row}), and
 * {@link io.gpusched.protocol.ProtocolCodec}, which writes and reads them field by field with
 * jackson-core's streaming API.
 *
 * <p>Why a codec and not the records' names: a field of the wire is named once, here, so renaming a Java
 * component can never change the protocol. The package depends only on values ({@code model},
 * {@code event}, {@code gpu}); the service writes its answers through it and its client reads them.
 */
package io.gpusched.protocol;
