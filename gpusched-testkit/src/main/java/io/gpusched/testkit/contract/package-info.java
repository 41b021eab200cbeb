/**
 * {@link io.gpusched.testkit.contract.GpuBackendContract}: the JUnit 5 contract test every GPU backend
 * should pass. A plugin author extends it in their own test sources and implements its factory method;
 * JUnit Jupiter must be on the test path.
 */
package io.gpusched.testkit.contract;
