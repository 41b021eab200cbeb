package io.gpusched.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package graph of every module's main classes, read from the bytecode on this module's class path
 * (core, nvml, testkit, slurm and cli). The rules are the ones docs/architecture.md draws: no cycle
 * among packages anywhere, values at the bottom, the service above the facade and never inside the
 * engine.
 */
class ArchitectureTest {
    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.gpusched");
    }

    @Test
    void noModuleHasAPackageCycle() {
        // "io.(**)" makes one slice per package, the root package io.gpusched included.
        slices().matching("io.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void theModelDependsOnNothingElseOfGpusched() {
        classes().that().resideInAPackage("io.gpusched.model")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.gpusched.model", "java..")
                .check(main);
    }

    @Test
    void theServiceNeverReachesIntoTheEngine() {
        noClasses().that().resideInAPackage("io.gpusched.service..")
                .should().dependOnClassesThat().resideInAPackage("io.gpusched.engine..")
                .check(main);
    }

    /** The engine's rooms, bottom up; each may use only the rooms before it (engine/package-info.java). */
    private static final String[] ROOMS = {"proc", "spawn", "preflight", "loop", "table", "observe", "stop", "lease", "ending",
            "queue", "plan", "sim"};

    @Test
    void eachRoomOfTheEngineUsesOnlyTheRoomsBelowIt() {
        for (int i = 0; i < ROOMS.length; i++) {
            String[] above = new String[ROOMS.length - i];
            for (int j = i + 1; j < ROOMS.length; j++) {
                above[j - i - 1] = "io.gpusched.engine." + ROOMS[j] + "..";
            }
            above[above.length - 1] = "io.gpusched.engine";
            noClasses().that().resideInAPackage("io.gpusched.engine." + ROOMS[i] + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(above)
                    .because("room " + ROOMS[i] + " sits below " + String.join(", ", above))
                    .check(main);
        }
    }

    @Test
    void onlyTheFacadeAndTheEngineItselfUseTheEngine() {
        noClasses().that().resideOutsideOfPackages("io.gpusched", "io.gpusched.engine..", "io.gpusched.cli")
                .should().dependOnClassesThat().resideInAPackage("io.gpusched.engine..")
                .check(main);
    }

    @Test
    void theImportSawEveryModule() {
        // Guards the rules above against passing on an empty or partial import.
        for (String pkg : new String[] {"io.gpusched", "io.gpusched.engine", "io.gpusched.nvml",
                "io.gpusched.slurm", "io.gpusched.testkit.sim", "io.gpusched.cli", "io.gpusched.dashboard"}) {
            assertTrue(main.containPackage(pkg), pkg + " was not imported");
        }
    }
}
