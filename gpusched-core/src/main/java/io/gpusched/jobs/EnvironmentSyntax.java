package io.gpusched.jobs;

/**
 * The values of {@code conda} and {@code setup} in a block, each read as {@link RunEnvironment} takes
 * it or refused with a {@link JobSpecException} naming the token.
 */
final class EnvironmentSyntax {
    private EnvironmentSyntax() {
    }

    /** A conda environment's name ({@link RunEnvironment#CONDA_NAME}) or the absolute path of its prefix. */
    static String conda(String value, String token, String source, int lineNo) {
        if (!RunEnvironment.isCondaEnv(value)) {
            throw new JobSpecException(source, lineNo, token, "bad conda",
                    "give an environment's name (letters, digits, '_', '.', '+', '-'; e.g. conda=torch) or the absolute"
                            + " path of its prefix (conda=/opt/envs/torch), as conda env list shows them");
        }
        return value;
    }

    /** Shell text, kept exactly as written (quotes aside). */
    static String setup(String value, String token, String source, int lineNo) {
        if (!RunEnvironment.isSetup(value)) {
            throw new JobSpecException(source, lineNo, token, "empty setup",
                    "give the shell text to run before the command, quoted when it holds spaces:"
                            + " setup='. venv/bin/activate'");
        }
        return value;
    }
}
