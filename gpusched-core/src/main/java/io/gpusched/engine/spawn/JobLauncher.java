package io.gpusched.engine.spawn;

import io.gpusched.options.SchedulerOptions.VisibleDevices;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.io.File;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Starts a job so it leads its own session and process group (the leader's pid is both ids), in the
 * scheduler's working directory (a submission's own, when it has one), stdin from {@code /dev/null},
 * stdout and stderr appended to its log, and the environment (the scheduler's, or the one a submission
 * captured) telling it which GPUs it got.
 *
 * <p>The run's pid file is written before the command starts and the command's exit status to the run's
 * exit file when it ends. That status survives the scheduler: a job that finishes while no scheduler is
 * watching is journaled with its real outcome on restart and never run again. What writes the status
 * outlives SIGTERM sent to the run's group, so it records how the command ended; if it is killed
 * itself, no status is written and the run counts as interrupted.
 *
 * <p>Where the native spawn server runs ({@link SpawnServer}), the session's leader is
 * {@code /bin/sh -c COMMAND} itself and the server's monitor, its parent outside the session, writes both
 * files (issue #27). Elsewhere it is {@code setsid /bin/sh -c WRAPPER}: a few lines of {@code sh} that
 * write the pid file, run the command in a subshell (so an {@code exit} in the command ends only the
 * command) and write the exit file; it traps SIGTERM with a no-op handler (a handler, unlike an ignored
 * signal, is not inherited by what the command starts).
 */
public final class JobLauncher implements RunDriver {
    /** Environment entry every process of a run inherits, so escaped processes can still be found. */
    public static final String RUN_VARIABLE = "GPUSCHED_RUN";

    // $1 pid file, $2 exit file, $3 the command. The positional parameters are cleared before the
    // command runs, as they are under a plain `sh -c CMD`; the wrapper's own names are prefixed so a
    // command is unlikely to read them by accident.
    public static final String WRAPPER = wrapper("eval \"$__gs_c\"");

    // The same, with $3 naming a file that holds the command's UTF-8 bytes: used when the JVM's
    // encoding for process arguments (the locale's) cannot carry the command, e.g. non-ASCII text
    // under LANG=C, where it would arrive as '?' — a glob wildcard; or when it is too long for one
    // argument (MAX_ARGUMENT_CHARS).
    static final String WRAPPER_FROM_FILE = wrapper(". \"$__gs_c\"");

    private static String wrapper(String runCommand) {
        return "trap : TERM; __gs_p=$1 __gs_e=$2 __gs_c=$3; shift 3; "
                + "printf '%s\\n' $$ >\"$__gs_p\"; "
                + "( trap 'exit 143' TERM; " + runCommand + " ); __gs_rc=$?; "
                + "printf '%s\\n' $__gs_rc >\"$__gs_e\"; exit $__gs_rc";
    }

    /**
     * The longest command passed as an argument: Linux refuses one argument over 128 KiB
     * (MAX_ARG_STRLEN), and a char is at most 3 bytes of UTF-8. A line's command fits, but one quoted
     * for {@code conda run} with its setup may not; a longer one goes through the command file.
     */
    static final int MAX_ARGUMENT_CHARS = 40_000;

    /**
     * The same limit in UTF-8 bytes, for the spawn server, which is sent the command's bytes (so any
     * locale carries any text): below MAX_ARG_STRLEN (131,072 bytes with the NUL), with room to spare.
     */
    static final int MAX_ARGUMENT_BYTES = 120_000;

    /** The spawn server's command, when it is in a file: sourced by a shell whose parameters are cleared. */
    static final String FROM_FILE = "__gs_c=$1; shift; . \"$__gs_c\"";

    private final CharsetEncoder argumentEncoding = argumentCharset().newEncoder();
    private final Path setsid;
    private final Path workDir;
    private final Map<String, String> extraEnv;
    /** The backend's variables for a job run as another user ({@link io.gpusched.gpu.GpuBackend#jobEnvironment(String)}). */
    private final java.util.function.Function<String, Map<String, String>> ownerEnv;
    private final VisibleDevices visibleDevices;
    /** The native spawn server, when it runs here: a run then needs no {@code setsid} exec. */
    private final Optional<SpawnServer> spawnd;
    /** {@code gpusched-runas}, where this build has it: what runs a submission as its owner. */
    private final Optional<Path> runas;

    public JobLauncher(Path setsid, Path workDir, Map<String, String> extraEnv, VisibleDevices visibleDevices) {
        this(setsid, workDir, extraEnv, visibleDevices, Optional.empty(), Optional.empty());
    }

    public JobLauncher(Path setsid, Path workDir, Map<String, String> extraEnv, VisibleDevices visibleDevices,
                Optional<SpawnServer> spawnd, Optional<Path> runas) {
        this(setsid, workDir, extraEnv, user -> extraEnv, visibleDevices, spawnd, runas);
    }

    /**
     * @param extraEnv the backend's variables for a job run as the scheduler's user
     * @param ownerEnv the backend's variables for a job run as the named user, in place of {@code extraEnv}
     */
    public JobLauncher(Path setsid, Path workDir, Map<String, String> extraEnv,
                java.util.function.Function<String, Map<String, String>> ownerEnv, VisibleDevices visibleDevices,
                Optional<SpawnServer> spawnd, Optional<Path> runas) {
        this.ownerEnv = ownerEnv;
        this.spawnd = spawnd;
        this.runas = runas;
        this.setsid = setsid;
        this.workDir = workDir;
        this.extraEnv = Map.copyOf(extraEnv);
        this.visibleDevices = visibleDevices;
    }

    /** Finds {@code setsid} (util-linux) on the PATH or in the usual places. */
    public static Optional<Path> findSetsid() {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        for (String dir : (path + ":/usr/bin:/bin:/usr/sbin:/sbin").split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, "setsid");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    @Override
    public Started start(Launch l) throws IOException {
        if (l.runAs().isEmpty()) {
            prepareOutput(l.log(), l.umask());
        }
        return launch(l.command(), l.gpus(), l.snapshot(), l.log(), l.jobVars(), l.runToken(), l.files(),
                l.workDir().orElse(workDir), l.environment(), l.runAs());
    }

    /**
     * Readies the output of a run of this scheduler's own user (root's own submission to a root daemon,
     * with {@code --output} in a directory others may write) as gpusched-runas readies a user's: never
     * written through a symbolic link, to a FIFO or device, or to another user's file planted there (which
     * would give them the output, or have root append it to a file of root's they linked), and, when
     * missing, created with its client's umask (0666 less it) rather than this process's (a daemon started
     * with 022 made a submitter's output 0644, readable by every user, whatever umask they submitted with).
     * The spawn server opens it again without following a link or blocking, so a link swapped in after this
     * look is refused there too. Its directory is made when missing, as the launch would make it.
     *
     * @param log the run's output
     * @param umask the client's creation mask; empty: this process's own applies, as for a jobs file's run
     * @throws IOException naming what is wrong with the output and how to fix it; the job does not start
     */
    static void prepareOutput(Path log, java.util.OptionalInt umask) throws IOException {
        if (!Files.isDirectory(log.getParent())) {
            Files.createDirectories(log.getParent());
        }
        if (umask.isPresent()) {
            java.util.Set<java.nio.file.attribute.PosixFilePermission> mode = modeLessUmask(umask.getAsInt());
            try {
                Files.createFile(log, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(mode));
                // Made here, by this process: its own umask took bits from the mode too. The client's alone decides.
                Files.setPosixFilePermissions(log, mode);
                return;
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // there already: looked at below, never written through
            }
        }
        // One stat, without following a link: this runs at every launch of the scheduler's own user.
        java.util.Map<String, Object> a;
        try {
            a = Files.readAttributes(log, "unix:isSymbolicLink,isRegularFile,uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException e) {
            return; // the launch creates it
        }
        if ((Boolean) a.get("isSymbolicLink")) {
            throw new IOException("output " + log + " is a symbolic link; gpusched writes a job's output only to a regular"
                    + " file; name the file itself with --output");
        }
        if (!(Boolean) a.get("isRegularFile")) {
            throw new IOException("output " + log + " is not a regular file (a FIFO, a socket or a device); name a file"
                    + " with --output");
        }
        // By uid, not name: a uid with no passwd entry has a number for a name, and this process a "?".
        int owner = (Integer) a.get("uid");
        int me = selfUid();
        if (owner != me) {
            String name = Files.getOwner(log, java.nio.file.LinkOption.NOFOLLOW_LINKS).getName();
            throw new IOException("output " + log + " belongs to " + name + " (uid " + owner + "), not to"
                    + " this scheduler's user (uid " + me + "): gpusched never appends a job's output to another user's"
                    + " file; remove it or name another file with --output");
        }
    }

    /** This process's uid once {@link #selfUid()} has read it; -1 before. */
    private static volatile int cachedUid = -1;

    /** @return this process's uid, the owner the kernel gives its {@code /proc/self}: read once, not at every launch */
    private static int selfUid() throws IOException {
        int uid = cachedUid;
        if (uid < 0) {
            uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            cachedUid = uid;
        }
        return uid;
    }

    /** 0666 less {@code umask}, as permissions. */
    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> modeLessUmask(int umask) {
        java.util.Set<java.nio.file.attribute.PosixFilePermission> mode = java.util.EnumSet.noneOf(
                java.nio.file.attribute.PosixFilePermission.class);
        java.nio.file.attribute.PosixFilePermission[] bits = java.nio.file.attribute.PosixFilePermission.values();
        for (int i = 0; i < bits.length; i++) {
            if ((0666 & ~umask & (0400 >> i)) != 0) {
                mode.add(bits[i]); // OWNER_READ is 0400, ... OTHERS_EXECUTE 0001: the enum's order
            }
        }
        return mode;
    }

    /**
     * @param runToken value of {@link #RUN_VARIABLE} for this run, unique per journal and run
     * @param run where the wrapper writes its pid and the command's exit status (and reads the
     *     command, when the argument encoding cannot carry it)
     * @param dir where the command starts
     * @param environment the environment it starts from instead of the scheduler's, when captured
     * @param runAs the user to run the command as, and its log; {@code log} then gets only what the
     *     root wrapper and gpusched-runas say (why the command could not start)
     */
    Started launch(String command, List<Integer> gpus, GpuSnapshot snapshot, Path log, Map<String, String> jobVars,
                   String runToken, RunFiles.Paths run, Path dir, Optional<Map<String, String>> environment,
                   Optional<RunDriver.RunAs> runAs) throws IOException {
        // Asked first: createDirectories on a directory that exists fails inside and builds an exception
        // for it, on every launch.
        if (!Files.isDirectory(log.getParent())) {
            Files.createDirectories(log.getParent());
        }
        if (runAs.isPresent()) {
            return launchAsOwner(command, runAs.get(), log, run, dir, environment,
                    runEnvironment(gpus, snapshot, jobVars, runToken, Optional.of(runAs.get().user())), runToken);
        }
        Map<String, String> env = new java.util.LinkedHashMap<>(environment.orElseGet(System::getenv));
        env.putIfAbsent("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        env.putAll(runEnvironment(gpus, snapshot, jobVars, runToken));
        Optional<Started> monitored = monitored(() -> {
            byte[] utf8 = command.getBytes(StandardCharsets.UTF_8);
            if (utf8.length <= MAX_ARGUMENT_BYTES) {
                return List.of("/bin/sh", "-c", command, "sh"); // $0 is sh, as under the wrapper
            }
            Files.write(run.command(), utf8);
            return List.of("/bin/sh", "-c", FROM_FILE, "sh", run.command().toString());
        }, env, dir, log, run);
        if (monitored.isPresent()) {
            return monitored.get();
        }
        List<String> argv = new java.util.ArrayList<>(List.of("/bin/sh", "-c"));
        boolean inFile = !argumentEncoding.canEncode(command) || command.length() > MAX_ARGUMENT_CHARS;
        argv.add(inFile ? WRAPPER_FROM_FILE : WRAPPER);
        argv.add("sh");
        argv.add(run.pid().toString());
        argv.add(run.exit().toString());
        if (inFile) {
            Files.write(run.command(), command.getBytes(StandardCharsets.UTF_8));
            argv.add(run.command().toString());
        } else {
            argv.add(command);
        }
        return spawn(argv, env, dir, log);
    }

    /** What a monitored run starts: its argv, possibly after writing the command file. */
    private interface CommandArgv {
        List<String> get() throws IOException;
    }

    /**
     * Starts a run under the spawn server's monitor, which writes its pid and exit files: empty where no
     * server runs (one that died before this run is replaced first), or where it died during this request
     * (the caller then starts the run's wrapper itself: the dead server's child ends unrun).
     */
    private Optional<Started> monitored(CommandArgv argv, Map<String, String> env, Path dir, Path log, RunFiles.Paths run)
            throws IOException {
        if (spawnd.isEmpty() || !spawnd.get().ready()) {
            return Optional.empty();
        }
        try {
            return Optional.of(spawnd.get().monitored(argv.get(), env, dir, log, run.pid(), run.exit()));
        } catch (IOException e) {
            if (spawnd.get().alive()) {
                throw e; // this run could not start (a missing directory, ...): as from the JVM's spawn
            }
            return Optional.empty(); // the server died: this run and the next go through the JVM's spawn
        }
    }

    /**
     * A submission run as its owner ({@link OwnerLaunch}): the root wrapper gets a fixed environment and
     * starts in {@code /}; everything of the submitter's goes to gpusched-runas in the run's spec file.
     */
    private Started launchAsOwner(String command, RunDriver.RunAs as, Path wrapperLog, RunFiles.Paths run, Path dir,
                                  Optional<Map<String, String>> environment, Map<String, String> runVariables,
                                  String runToken) throws IOException {
        Path helper = runas.orElseThrow(() -> new IOException("this build has no gpusched-runas (it was built without a C"
                + " compiler), which runs a submission as its owner; rebuild gpusched with gcc"));
        Map<String, String> over = new java.util.LinkedHashMap<>();
        if (environment.map(e -> !e.containsKey("CUDA_DEVICE_ORDER")).orElse(true)) {
            over.put("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        }
        over.putAll(runVariables);
        byte[] spec;
        try {
            spec = OwnerLaunch.spec(as.user(), dir, as.log(), as.umask(), environment, over, command);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        OwnerLaunch.write(run.spec(), spec);
        Map<String, String> env = new java.util.LinkedHashMap<>(OwnerLaunch.ROOT_ENVIRONMENT);
        env.put(RUN_VARIABLE, runToken);
        // The monitor (root, this fixed environment, in /) starts gpusched-runas as the root wrapper did.
        Optional<Started> monitored = monitored(() -> List.of(helper.toString(), run.spec().toString()), env,
                Path.of("/"), wrapperLog, run);
        if (monitored.isPresent()) {
            return monitored.get();
        }
        List<String> argv = List.of("/bin/sh", "-c", OwnerLaunch.WRAPPER, "sh", run.pid().toString(), run.exit().toString(),
                helper.toString(), run.spec().toString());
        return spawn(argv, env, Path.of("/"), wrapperLog);
    }

    /** Starts a wrapper as a session leader through the JVM's {@code setsid}: where no spawn server runs. */
    private Started spawn(List<String> wrapperArgv, Map<String, String> env, Path dir, Path log) throws IOException {
        List<String> argv = new java.util.ArrayList<>(wrapperArgv);
        argv.add(0, setsid.toString());
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.directory(dir.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        return new Started(p.pid(), p.onExit().thenApply(Process::exitValue));
    }

    /**
     * What a run's environment gets over the one it starts from: the backend's extra variables, the
     * job's, the GPUs it got ({@code CUDA_VISIBLE_DEVICES}, {@code GPUSCHED_GPUS}) and its run token.
     * {@code CUDA_DEVICE_ORDER=PCI_BUS_ID} is set only where the environment has none.
     */
    public Map<String, String> runEnvironment(List<Integer> gpus, GpuSnapshot snapshot, Map<String, String> jobVars,
                                       String runToken) {
        return runEnvironment(gpus, snapshot, jobVars, runToken, Optional.empty());
    }

    /**
     * {@link #runEnvironment(List, GpuSnapshot, Map, String)} for a run of {@code user}'s, when it runs as
     * that user: the backend's variables are then that user's.
     */
    public Map<String, String> runEnvironment(List<Integer> gpus, GpuSnapshot snapshot, Map<String, String> jobVars,
                                       String runToken, Optional<String> user) {
        Map<String, String> env = new java.util.LinkedHashMap<>(user.map(ownerEnv).orElse(extraEnv));
        env.putAll(jobVars);
        env.put("CUDA_VISIBLE_DEVICES", visibleDevices(gpus, snapshot));
        env.put("GPUSCHED_GPUS", indices(gpus));
        env.put(RUN_VARIABLE, runToken);
        return env;
    }

    /** The charset the JDK encodes process arguments with: the locale's, not always UTF-8. */
    private static Charset argumentCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (IllegalArgumentException e) {
            return StandardCharsets.US_ASCII; // unknown: assume the narrowest, and use the file path
        }
    }

    /**
     * UUIDs name exactly the chosen devices whatever CUDA's own ordering; indices when any is unknown.
     * {@code --visible-devices index} gives indices, except on a machine with MIG instances: there the
     * scheduler's indices count each instance, so they are not CUDA's, and no index names an instance.
     */
    String visibleDevices(List<Integer> gpus, GpuSnapshot snapshot) {
        // Loops, not streams: this runs at every launch, mostly interpreted or C1-compiled, where a
        // stream pipeline measured 4 % of the loop thread's CPU per trivial job (issue #27).
        if (visibleDevices == VisibleDevices.UUID || hasMigInstances(snapshot)) {
            StringBuilder b = new StringBuilder();
            String sep = "";
            for (Integer i : gpus) {
                Optional<String> uuid = snapshot.gpu(i).flatMap(GpuStat::uuid);
                if (uuid.isEmpty()) {
                    return indices(gpus);
                }
                b.append(sep).append(uuid.get());
                sep = ",";
            }
            return b.toString();
        }
        return indices(gpus);
    }

    /** Whether any device is a MIG instance (NVML names them {@code MIG-…}). */
    private static boolean hasMigInstances(GpuSnapshot snapshot) {
        for (GpuStat g : snapshot.gpus()) {
            if (g.uuid().isPresent() && g.uuid().get().startsWith("MIG-")) {
                return true;
            }
        }
        return false;
    }

    /** The GPUs' indices, comma-separated ({@code 0,2}). */
    private static String indices(List<Integer> gpus) {
        StringBuilder b = new StringBuilder();
        String sep = "";
        for (Integer i : gpus) {
            b.append(sep).append(i.intValue());
            sep = ",";
        }
        return b.toString();
    }
}
