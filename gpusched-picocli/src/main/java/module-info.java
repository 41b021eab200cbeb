/**
 * picocli, compiled for Java 17 from its published sources (see this module's pom.xml): the parser, help
 * and completion library of gpusched's command line, under picocli's own module name.
 */
module info.picocli {
    exports picocli;
}
