/**
 * The checks a host must pass before the engine can launch anything ({@code Preflight}: the native
 * helpers extract and run, {@code setsid} and {@code tmux} are there), run by {@code gpusched doctor}
 * as well as by the engine. Uses only {@code spawn}; exported to the command line alone.
 */
package io.gpusched.engine.preflight;
