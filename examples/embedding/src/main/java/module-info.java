/** The embedding example, as a named module: needs only gpusched's API modules. */
module io.gpusched.example {
    requires io.gpusched;
    requires io.gpusched.testkit; // the "sim" backend, found through ServiceLoader
}
