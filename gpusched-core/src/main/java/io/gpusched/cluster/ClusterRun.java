package io.gpusched.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An attempt as the cluster holds it: no local process stands for it, so the engine never signals,
 * samples or sweeps for it; it follows these futures and asks {@link #cancel()}.
 */
public interface ClusterRun {
    /** @return the cluster's id of it (Slurm's job id), at least 1: the journal keeps it to follow it again */
    long id();

    /** @return what was asked of the cluster for its GPUs, as the journal keeps it (e.g. {@code shard:2}) */
    String request();

    /**
     * @return where it is, as {@code gpusched queue} and the status board show it: the cluster's name for it
     *     and its state there, e.g. {@code slurm job 41 RUNNING}; safe from any thread
     */
    default String where() {
        return "cluster job " + id();
    }

    /** @return where its command's output goes: the log its outcome is read from (a CUDA OOM in its tail) */
    Path log();

    /** @return completes, on any thread, with the GPUs it got once its command started (empty when unknown) */
    CompletableFuture<List<Integer>> running();

    /** @return completes once, on any thread, with how it ended */
    CompletableFuture<ClusterReport> ended();

    /**
     * Asks the cluster to stop it (a cancel); it ends through {@link #ended()} when the cluster says so.
     * Called on the engine's thread: must not wait long. Its time limit is the cluster's to enforce.
     */
    void cancel();
}
