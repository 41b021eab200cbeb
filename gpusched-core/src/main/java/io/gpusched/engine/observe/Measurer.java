package io.gpusched.engine.observe;

import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.proc.ProcTable;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.table.JobTable;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Tenant;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Attribution: each GPU process's memory goes to the running job whose session it is in, or for a lease or
 * {@code [tty]} run whose token it carries (so workers
 * that start their own process group still count); the rest is external, and each external process's
 * peak is kept while it lives, for the headroom the allocator leaves it. Also the GPU views the
 * allocator places on.
 */
public final class Measurer {
    private final SchedulerOptions options;
    private final ProcTable procFs;
    private final JobTable table;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Timelines timelines;
    /** Observed peak of each process we did not launch, per GPU it uses; forgotten when it exits. */
    private final Map<ExternalProcess, Long> externalPeaks = new HashMap<>();
    private boolean pidsInvisible;
    /** Recent utilisation per GPU, for {@code --max-util}. */
    private final UtilWindow util = new UtilWindow();

    /** A process we did not launch, on one GPU. */
    private record ExternalProcess(int gpu, long pid) {
    }

    public Measurer(SchedulerOptions options, ProcTable procFs, JobTable table, Reporter reporter, LoopClock clock, Timelines timelines) {
        this.timelines = timelines;
        this.options = options;
        this.procFs = procFs;
        this.table = table;
        this.reporter = reporter;
        this.clock = clock;
    }

    /** @return whether GPU processes were seen whose PIDs this PID namespace does not have */
    public boolean pidsInvisible() {
        return pidsInvisible;
    }

    void attribute(GpuSnapshot snap) {
        for (RunningJob rj : table.runs()) {
            rj.currentMib.replaceAll((g, v) -> 0L);
        }
        Map<Long, OptionalLong> sessions = new HashMap<>();
        Set<ExternalProcess> seenExternal = new HashSet<>();
        int visible = 0;
        for (GpuProcess p : snap.processes()) {
            OptionalLong sid = sessions.computeIfAbsent(p.pid(), procFs::sessionOf);
            if (sid.isPresent()) {
                visible++;
            }
            Optional<RunningJob> job = sid.isPresent() ? table.runInSession(sid.getAsLong()) : Optional.empty();
            if (job.isEmpty() && sid.isPresent()) {
                job = lease(p.pid());
            }
            int held = job.isPresent() ? keyOn(job.get(), p.gpu(), snap) : -1;
            if (held >= 0) {
                job.get().currentMib.merge(held, p.usedMib(), Long::sum);
                job.get().attributed = true;
            } else {
                ExternalProcess key = new ExternalProcess(p.gpu(), p.pid());
                seenExternal.add(key);
                externalPeaks.merge(key, p.usedMib(), Math::max);
            }
        }
        externalPeaks.keySet().retainAll(seenExternal);
        if (!snap.processes().isEmpty() && visible == 0 && !table.noneRunning()) {
            pidsInvisible = true;
            reporter.warnOnce("GPU processes are reported with PIDs that do not exist in this PID namespace (a container"
                    + " without --pid=host?): per-job peaks will be n/a; placement still uses device totals");
        }
        java.time.Instant now = clock.now();
        util.record(now, snap);
        for (RunningJob rj : table.runs()) {
            follow(rj, snap);
            track(rj, snap);
            // Where the peaks are: one append per running job per sample, no allocation on most.
            timelines.sample(rj, now);
        }
    }

    /**
     * The lease or {@code [tty]} run a process belongs to, by the token in its environment: a lease's
     * command runs in its client's terminal, a tty job's in tmux's sessions, not in the run's own. Read
     * only for GPU processes no session claimed, and only while such a run runs. Only a process of the
     * run's owner counts: another user may put a run's token in a process of theirs.
     */
    private Optional<RunningJob> lease(long pid) {
        for (RunningJob rj : table.runs()) {
            Optional<String> entry = rj.leaseEntry.or(() -> rj.ttyEntry);
            if (entry.isPresent() && procFs.carries(pid, entry.get()) && procFs.runsAs(pid, table.owner(rj.key()))) {
                return Optional.of(rj);
            }
        }
        return Optional.empty();
    }

    /**
     * Peaks, utilisation, and the two notices: verbose growth, and the moment a declaration is exceeded.
     * Utilisation is read where its devices are listed now (after {@link #follow}): after a renumbering
     * the index it started at is another device's, whose load is not its own.
     */
    private void track(RunningJob rj, GpuSnapshot snap) {
        rj.currentMib.forEach((g, mib) -> rj.peakMib.merge(g, mib, Math::max));
        double sum = 0;
        int n = 0;
        List<RunningJob.Device> devices = rj.devices();
        int count = devices.isEmpty() ? rj.gpus.size() : devices.size();
        for (int i = 0; i < count; i++) { // per running job per sample: no stream
            int index;
            if (devices.isEmpty()) {
                index = rj.gpus.get(i);
            } else if (devices.get(i).listed()) {
                index = devices.get(i).at();
            } else {
                continue; // not listed: nothing of it to read
            }
            Optional<GpuStat> s = snap.gpu(index);
            if (s.isPresent() && s.get().utilPercent().isPresent()) {
                sum += s.get().utilPercent().getAsInt();
                n++;
            }
        }
        if (n > 0) {
            rj.utilSum += sum / n;
            rj.utilSamples++;
        }
        long peak = rj.overallPeak();
        if (options.verbose() && rj.attributed && peak >= rj.lastVerbosePeak + options.verboseStepMib()) {
            rj.lastVerbosePeak = peak;
            reporter.emit(new SchedulerEvent.VramGrew(clock.now(), rj.no, rj.currentMibNow(), peak));
        }
        if (rj.declaredMib.isPresent() && !rj.overWarned && peak > rj.declaredMib.getAsLong() * (1 + options.tolerance())) {
            rj.overWarned = true;
            int gpu = rj.peakMib.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
            // Named where its device is listed now (the GPUs may have been renumbered since it started), and by UUID.
            reporter.emit(new SchedulerEvent.ExceededDeclaration(clock.now(), rj.no, rj.indexNow(gpu), rj.peakMib.get(gpu),
                    rj.declaredMib.getAsLong(), rj.uuidOf(gpu)));
        }
    }

    /**
     * Which of a running job's GPUs {@code g} is, as the key its memory is kept under (the index it
     * started on), or -1 when it is none of them. By UUID where the job's are known: when the backend
     * renumbers the GPUs under a running job (MIG instances created or destroyed on an earlier GPU),
     * its declaration and memory follow its device instead of staying on an index another device has now,
     * where a new job would otherwise be placed over it. By index where they are not (simulated GPUs).
     */
    private static int keyOf(RunningJob rj, GpuStat g) {
        List<String> uuids = rj.uuids();
        if (uuids.isEmpty()) {
            return rj.gpus.contains(g.index()) ? g.index() : -1;
        }
        if (g.uuid().isEmpty()) {
            return -1;
        }
        String uuid = g.uuid().get();
        for (int i = 0; i < uuids.size(); i++) { // per GPU per running job per sample: no stream
            if (uuids.get(i).equals(uuid)) {
                return rj.gpus.get(i);
            }
        }
        return -1;
    }

    /** {@link #keyOf} for a GPU process on GPU {@code index} of {@code snap}. */
    private static int keyOn(RunningJob rj, int index, GpuSnapshot snap) {
        if (rj.uuids().isEmpty()) {
            return rj.currentMib.containsKey(index) ? index : -1;
        }
        Optional<GpuStat> g = snap.gpu(index);
        return g.isPresent() ? keyOf(rj, g.get()) : -1;
    }

    /**
     * Reads where each of a running job's devices is listed now, and says it when that changed since it
     * was last said: listed at another index (the GPUs were renumbered), unhealthy (NVML lists a lost GPU
     * so), not listed at all, or back as it started. What was said is kept on the job's device, so the
     * common sample (each device where it was) compares a UUID or two and builds no text, and a device
     * lost, back and lost again is said each time.
     */
    private void follow(RunningJob rj, GpuSnapshot snap) {
        List<RunningJob.Device> devices = rj.devices();
        for (int i = 0; i < devices.size(); i++) { // per running job per sample: no stream
            RunningJob.Device d = devices.get(i);
            Optional<GpuStat> at = snap.gpu(d.at());
            if (at.isEmpty() || !named(at.get(), d.uuid())) {
                at = Optional.empty();
                for (GpuStat g : snap.gpus()) {
                    if (named(g, d.uuid())) {
                        at = Optional.of(g);
                        break;
                    }
                }
            }
            rj.read(i, at.isPresent() ? at.get().index() : -1, at.isPresent() && at.get().healthy());
            if (d.unsaid()) {
                d.said();
                reporter.warn(said(rj, d));
            }
        }
    }

    private static boolean named(GpuStat g, String uuid) {
        return g.uuid().isPresent() && g.uuid().get().equals(uuid);
    }

    /** What is said when a running job's device was read elsewhere, or in another state, than last said. */
    private static String said(RunningJob rj, RunningJob.Device d) {
        String device = "gpu " + d.started() + " (" + d.uuid() + "), where job " + rj.no + " runs, ";
        if (!d.listed()) {
            return device + "is no longer listed: its memory there cannot be measured; gpusched cancel " + rj.no
                    + " stops it";
        }
        if (!d.healthy()) {
            return device + "is listed unhealthy" + (d.at() != d.started() ? " as gpu " + d.at() : "")
                    + " (lost, or unreadable): its memory there cannot be measured; gpusched cancel " + rj.no
                    + " stops it";
        }
        if (d.at() != d.started()) {
            return device + "is listed as gpu " + d.at() + " now: the GPUs were renumbered (MIG instances created or"
                    + " destroyed?); its declaration and memory are counted on gpu " + d.at();
        }
        return device + "is listed as gpu " + d.at() + " again: its declaration and memory are counted there";
    }

    /** Each GPU's memory as placement counts it, with the running jobs on it by number: for snapshots. */
    public List<io.gpusched.event.QueueSnapshot.GpuMemory> memory(GpuSnapshot snap, Set<Integer> paused) {
        Map<String, RunningJob> byKey = new HashMap<>();
        table.runs().forEach(rj -> byKey.put(rj.key(), rj));
        List<io.gpusched.event.QueueSnapshot.GpuMemory> out = new ArrayList<>();
        for (GpuView v : views(snap, paused)) {
            List<io.gpusched.event.QueueSnapshot.JobMemory> jobs = new ArrayList<>();
            for (Tenant t : v.tenants()) {
                jobs.add(new io.gpusched.event.QueueSnapshot.JobMemory(byKey.get(t.key()).no, t.declaredMib(), t.currentMib(),
                        t.peakMib(), io.gpusched.alloc.Headroom.budget(t, options.spikeBuffer())));
            }
            out.add(new io.gpusched.event.QueueSnapshot.GpuMemory(v.index(), v.totalMib(), v.usedMib(),
                    io.gpusched.alloc.Headroom.effectiveExternal(v, options.spikeBuffer()),
                    io.gpusched.alloc.Headroom.effective(v, options.spikeBuffer()), jobs));
        }
        return out;
    }

    /** Each GPU as the allocator sees it: totals, external peaks, the running jobs on it, paused or not. */
    public List<GpuView> views(GpuSnapshot snap, Set<Integer> paused) {
        Map<Integer, Long> extPeaks = new HashMap<>();
        externalPeaks.forEach((k, v) -> extPeaks.merge(k.gpu(), v, Long::sum));
        List<GpuView> out = new ArrayList<>();
        for (GpuStat g : snap.gpus()) {
            List<Tenant> tenants = new ArrayList<>();
            for (RunningJob rj : table.runs()) {
                int key = keyOf(rj, g);
                if (key >= 0) {
                    tenants.add(new Tenant(rj.key(), rj.declaredMib, rj.currentMib.getOrDefault(key, 0L),
                            rj.peakMib.getOrDefault(key, 0L)));
                }
            }
            // Only with a limit: a reading that changes every sample would otherwise make every round replan.
            java.util.OptionalInt recent = options.policy().maxUtilPercent().isPresent()
                    ? util.recent(g) : java.util.OptionalInt.empty();
            out.add(new GpuView(g.index(), g.totalMib(), g.usedMib(), extPeaks.getOrDefault(g.index(), 0L), tenants,
                    g.healthy(), paused.contains(g.index()), recent));
        }
        return out;
    }
}
