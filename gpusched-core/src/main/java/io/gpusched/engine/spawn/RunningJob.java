package io.gpusched.engine.spawn;

import io.gpusched.engine.lease.Leases;

import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;

/** Per-attempt state of a running job. Confined to the engine thread. */
public final class RunningJob {
    public final JobSpec spec;
    public final int no;
    public final OptionalLong declaredMib;
    /** The requirement rule its declaration came from, set at launch; empty when none. */
    public java.util.Optional<String> rule = java.util.Optional.empty();
    /** Where its declaration was learned ({@code vram=auto}), set at launch; empty when it was not. */
    public java.util.Optional<String> learned = java.util.Optional.empty();
    public final List<Integer> gpus;
    /** The run's session (and process group) id; its leader's pid. */
    public final long pid;
    public final Path log;
    /** When it started by the wall clock: for dates shown and the policy's views, never to time it (see {@link #ran}). */
    public final Instant startedAt;
    /**
     * When it started on the loop's monotonic ticker ({@link io.gpusched.engine.loop.LoopClock#nanos()}):
     * its time limit, and every duration shown for it, count from here, so a wall clock set a day forward
     * (an admin's {@code date -s}, NTP fixing a bad RTC) neither times it out at once nor, set back, lets
     * it run a day longer.
     */
    public final long startedNanos;
    /** Run number in the journal; names the run's pid and exit files. */
    public final long run;
    /** The leader's start time in clock ticks since boot; 0 when it could not be read. */
    final long startTicks;
    public final TreeMap<Integer, Long> currentMib = new TreeMap<>();
    public final TreeMap<Integer, Long> peakMib = new TreeMap<>();
    public boolean attributed;
    public boolean overWarned;
    public long lastVerbosePeak = -1;
    public double utilSum;
    public int utilSamples;
    public Optional<StopReason> stopping = Optional.empty();
    /** When its SIGTERM was sent, on the loop's ticker: its kill grace counts from here, whatever the wall clock does. */
    public long stopSentNanos;
    public boolean killEscalated;
    /** Whether it is being stopped for the scheduler's {@code --max-job-time}, not its own {@code timeout=}. */
    public boolean overMaxJobTime;
    /**
     * For a lease run ({@link Leases}): the environment entry its processes carry, which stands for its
     * session in attribution and signals ({@link #pid} is then a stand-in no process has).
     */
    public final Optional<String> leaseEntry;
    /**
     * For a {@code [tty]} run: the environment entry its processes carry. tmux starts its server and
     * panes in sessions of their own, so the command's GPU memory is found by this entry instead.
     */
    public Optional<String> ttyEntry = Optional.empty();
    /**
     * For a run on a cluster that placed it (a Slurm job): the cluster's handle on it. Its {@link #pid}
     * is then {@link io.gpusched.journal.RunHandle#NO_SESSION}, which no process has.
     */
    public Optional<io.gpusched.cluster.ClusterRun> elsewhere = Optional.empty();
    /** For a run on a cluster: how it ended, as measured there, set just before its exit is reaped. */
    public Optional<io.gpusched.cluster.ClusterReport> report = Optional.empty();
    /** See {@link #uuids()}. */
    private List<String> uuids = List.of();
    /** Its devices followed by UUID, parallel to {@link #uuids}; empty with them. */
    private List<Device> devices = List.of();
    /** See {@link #gpusNow()}: {@link #gpus} itself until a device is read at another index. */
    private List<Integer> gpusNow;

    /**
     * One of its GPUs, followed by UUID: the index it started at, the index it was last listed at, whether
     * it is listed and healthy now, and what was last said about it. Kept per job so that a move is said
     * once when it happens (not looked up in a set of said texts at every sample), and so that a device
     * lost, back and lost again is said again. Confined to the engine thread.
     */
    public static final class Device {
        private final String uuid;
        private final int started;
        private int at;
        private boolean listed = true;
        private boolean healthy = true;
        private int saidAt;
        private boolean saidListed = true;
        private boolean saidHealthy = true;

        Device(String uuid, int started) {
            this.uuid = uuid;
            this.started = started;
            this.at = started;
            this.saidAt = started;
        }

        /** @return its UUID */
        public String uuid() {
            return uuid;
        }

        /** @return the index it started at (or was taken up at): the one the journal keeps */
        public int started() {
            return started;
        }

        /** @return the index it is listed at now; while it is not listed, the one it was last listed at */
        public int at() {
            return at;
        }

        /** @return whether the last sample listed it */
        public boolean listed() {
            return listed;
        }

        /** @return whether the last sample listed it healthy (a lost GPU is listed unhealthy by NVML) */
        public boolean healthy() {
            return listed && healthy;
        }

        /** @return whether where it is, or its health, changed since it was last said (nothing to say at start) */
        public boolean unsaid() {
            return at != saidAt || listed != saidListed || healthy != saidHealthy;
        }

        /** Remembers that its place and health as last read were said. */
        public void said() {
            saidAt = at;
            saidListed = listed;
            saidHealthy = healthy;
        }
    }

    /**
     * @param gpus GPU indices
     * @param stats the GPUs as just read
     * @return the UUID of each of {@code gpus}, in order; empty unless every one is listed with a UUID
     */
    /**
     * The device UUIDs of {@link #gpus}, in the same order, as read when it started (or was taken up):
     * what its GPUs are when the backend renumbers them under it (MIG instances created or destroyed on
     * an earlier GPU). Empty when the backend did not name each of them; indices are then all there is.
     *
     * @return the UUIDs, parallel to {@link #gpus}, or empty
     */
    public List<String> uuids() {
        return uuids;
    }

    /**
     * Names its devices, at launch or take-up, and starts following them from {@link #gpus}.
     *
     * @param uuids the UUID of each of {@link #gpus}, in order; empty when they are not known
     * @throws IllegalArgumentException when neither empty nor one per GPU
     */
    public void knowDevices(List<String> uuids) {
        if (!uuids.isEmpty() && uuids.size() != gpus.size()) {
            throw new IllegalArgumentException("one UUID per GPU: " + uuids + " for " + gpus);
        }
        this.uuids = List.copyOf(uuids);
        List<Device> out = new java.util.ArrayList<>(uuids.size());
        for (int i = 0; i < uuids.size(); i++) {
            out.add(new Device(uuids.get(i), gpus.get(i)));
        }
        devices = List.copyOf(out);
        gpusNow = gpus;
    }

    /** @return its devices as followed by UUID, parallel to {@link #gpus}; empty when {@link #uuids()} is */
    public List<Device> devices() {
        return devices;
    }

    /**
     * Records where a sample listed one of its devices.
     *
     * @param device which of {@link #devices()}
     * @param index the index it is listed at, or -1 when it is not listed
     * @param healthy whether it is listed healthy
     */
    public void read(int device, int index, boolean healthy) {
        Device d = devices.get(device);
        d.listed = index >= 0;
        d.healthy = healthy;
        if (index >= 0 && index != d.at) {
            d.at = index;
            List<Integer> now = new java.util.ArrayList<>(devices.size());
            for (Device e : devices) {
                now.add(e.at);
            }
            gpusNow = now.equals(gpus) ? gpus : List.copyOf(now);
        }
    }

    /**
     * Where it runs now, for what is shown ({@code gpusched queue}, the status board): each device's
     * index as last listed, in the order of {@link #gpus}. The same as {@link #gpus} (the indices it
     * started on, which the journal, its result and its log's name keep) until the backend renumbers a
     * device under it; a device no longer listed keeps the index it was last listed at.
     *
     * @return the indices
     */
    public List<Integer> gpusNow() {
        return gpusNow;
    }

    /**
     * {@link #currentMib} keyed as {@link #gpusNow()}, for what is shown beside it (a row's memory per GPU,
     * which {@code gpusched top} draws on the GPU of that index).
     *
     * @return the MiB it holds now by GPU index as listed now; {@link #currentMib} itself until a device moved
     */
    public java.util.Map<Integer, Long> currentMibNow() {
        if (gpusNow == gpus) {
            return currentMib;
        }
        java.util.Map<Integer, Long> out = new TreeMap<>();
        for (int i = 0; i < gpus.size(); i++) {
            out.merge(gpusNow.get(i), currentMib.getOrDefault(gpus.get(i), 0L), Long::sum);
        }
        return out;
    }

    /**
     * {@link #peakMib} keyed as {@link #gpusNow()}: its peaks by the index each device is listed at now,
     * as the journal's {@code done} line and its result name them, and the warnings of its memory say.
     * Two of its devices shown at one index (one left the list at the index another took) keep the larger.
     *
     * @return its peak MiB by GPU index as listed now; {@link #peakMib} itself until a device moved
     */
    public java.util.Map<Integer, Long> peakMibNow() {
        if (gpusNow == gpus) {
            return peakMib;
        }
        java.util.Map<Integer, Long> out = new TreeMap<>();
        for (int i = 0; i < gpus.size(); i++) {
            Long v = peakMib.get(gpus.get(i));
            if (v != null) {
                out.merge(gpusNow.get(i), v, Math::max);
            }
        }
        return out;
    }

    /**
     * @param started one of {@link #gpus}, as its memory is kept
     * @return the index that device is listed at now ({@link #gpusNow()}); {@code started} when it is none of them
     */
    public int indexNow(int started) {
        int i = gpus.indexOf(started);
        return i < 0 ? started : gpusNow.get(i);
    }

    /**
     * @param started one of {@link #gpus}
     * @return that device's UUID, where the backend named it ({@link #uuids()})
     */
    public Optional<String> uuidOf(int started) {
        int i = gpus.indexOf(started);
        return i < 0 || uuids.isEmpty() ? Optional.empty() : Optional.of(uuids.get(i));
    }

    /**
     * The indices its devices hold in the last sample, for the queue policy (which GPUs a reservation
     * waits on, which jobs a preemption frees): a device not listed now holds none, so another device
     * that took its index is not counted as held by this job.
     *
     * @return the indices, in the order of {@link #gpus}; fewer than {@link #gpus} while a device is not listed
     */
    public List<Integer> gpusHeld() {
        for (Device d : devices) {
            if (!d.listed) {
                return devices.stream().filter(Device::listed).map(Device::at).toList();
            }
        }
        return gpusNow;
    }

    public static List<String> uuidsOf(List<Integer> gpus, List<io.gpusched.gpu.GpuStat> stats) {
        List<String> out = new java.util.ArrayList<>(gpus.size());
        for (int g : gpus) {
            Optional<String> uuid = Optional.empty();
            for (io.gpusched.gpu.GpuStat s : stats) { // at every launch: a few GPUs, no stream
                if (s.index() == g) {
                    uuid = s.uuid();
                    break;
                }
            }
            if (uuid.isEmpty()) {
                return List.of();
            }
            out.add(uuid.get());
        }
        return List.copyOf(out);
    }

    public RunningJob(JobSpec spec, int no, OptionalLong declaredMib, List<Integer> gpus, long pid, Path log, Instant startedAt,
               long startedNanos, long run, long startTicks, Optional<String> leaseEntry) {
        this.leaseEntry = leaseEntry;
        this.spec = spec;
        this.no = no;
        this.declaredMib = declaredMib;
        this.gpus = List.copyOf(gpus);
        this.pid = pid;
        this.log = log;
        this.startedAt = startedAt;
        this.startedNanos = startedNanos;
        this.run = run;
        this.startTicks = startTicks;
        for (int g : gpus) {
            currentMib.put(g, 0L);
        }
        this.gpusNow = this.gpus;
    }

    /** @return whether the run is a client's lease, run in the client's terminal rather than a session of its own */
    public boolean lease() {
        return leaseEntry.isPresent();
    }

    /** @return whether no local session stands for the run: its driver's system placed it and stops it */
    public boolean placedElsewhere() {
        return elsewhere.isPresent();
    }

    /**
     * @param nanosNow the loop's ticker now
     * @return how long this attempt has run, by the ticker: never negative, whatever the wall clock did
     */
    public java.time.Duration ran(long nanosNow) {
        return java.time.Duration.ofNanos(Math.max(0, nanosNow - startedNanos));
    }

    public String key() {
        return spec.key();
    }

    public long overallPeak() {
        long max = Long.MIN_VALUE; // read per running job at every sample: a loop, not a stream
        for (long v : peakMib.values()) {
            max = Math.max(max, v);
        }
        return peakMib.isEmpty() ? 0 : max;
    }

    public OptionalDouble avgUtil() {
        return utilSamples == 0 ? OptionalDouble.empty() : OptionalDouble.of(utilSum / utilSamples);
    }
}
