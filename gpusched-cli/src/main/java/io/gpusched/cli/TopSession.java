package io.gpusched.cli;

import io.gpusched.cli.ScreenLine.Span;
import io.gpusched.cli.ScreenLine.Style;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What {@code gpusched top}'s keys do, without a terminal or a daemon: which job is selected, the
 * question asked before a cancel, pause or resume, and the status line. {@link #handle} turns a key
 * into an {@link Action} for the caller to carry out; {@link #told} shows what came of it.
 */
final class TopSession {
    /** Key codes beyond characters. */
    static final int UP = 0x1_0001;
    static final int DOWN = 0x1_0002;
    static final int ESCAPE = 27;
    static final int CTRL_C = 3;

    /** What a key asks the caller to do. */
    sealed interface Action {
    }

    /** Nothing beyond drawing the frame again. */
    record Redraw() implements Action {
    }

    /** Leave top, restoring the terminal. */
    record Quit() implements Action {
    }

    /** @param no the job to cancel (the user said yes) */
    record Cancel(int no) implements Action {
    }

    /**
     * @param gpu the GPU to pause or resume
     * @param pause true to pause, false to resume
     */
    record Pause(int gpu, boolean pause) implements Action {
    }

    private enum Mode { KEYS, CONFIRM_CANCEL, ASK_GPU }

    private final boolean unicode;
    private Mode mode = Mode.KEYS;
    private OptionalInt selected = OptionalInt.empty();
    private int selectedIndex;
    private int confirming;
    private boolean pausing;
    private String typed = "";
    private Optional<Span> message = Optional.empty();

    /** @param unicode whether the status line may show arrows */
    TopSession(boolean unicode) {
        this.unicode = unicode;
    }

    /** @return the selected job's number; none while no job runs or waits */
    OptionalInt selected() {
        return selected;
    }

    /**
     * Keeps the selection on the same job in a new snapshot; when that job has left the list, on the
     * job now at its place, so the selection does not jump back to the top.
     */
    void refresh(TopSnapshot snap) {
        List<Integer> jobs = TopRenderer.selectable(snap);
        int at = selected.isPresent() ? jobs.indexOf(selected.getAsInt()) : -1;
        if (at >= 0) {
            selectedIndex = at;
        } else if (jobs.isEmpty()) {
            selected = OptionalInt.empty();
        } else {
            selectedIndex = Math.min(selectedIndex, jobs.size() - 1);
            selected = OptionalInt.of(jobs.get(selectedIndex));
        }
    }

    /** Shows the outcome of an action until the next key. */
    void told(Span outcome) {
        message = Optional.of(outcome);
    }

    /**
     * @param key a character, or {@link #UP}, {@link #DOWN}
     * @param snap what the screen shows now
     * @return what to do
     */
    Action handle(int key, TopSnapshot snap) {
        if (key == CTRL_C) {
            return new Quit();
        }
        message = Optional.empty();
        switch (mode) {
            case CONFIRM_CANCEL -> {
                mode = Mode.KEYS;
                if (key == 'y' || key == 'Y') {
                    return new Cancel(confirming);
                }
                message = Optional.of(new Span("job " + confirming + " not cancelled", Style.DIM));
                return new Redraw();
            }
            case ASK_GPU -> {
                return gpuKey(key, snap);
            }
            default -> {
                return normalKey(key, snap);
            }
        }
    }

    private Action normalKey(int key, TopSnapshot snap) {
        List<Integer> jobs = TopRenderer.selectable(snap);
        switch (key) {
            case 'q', 'Q' -> {
                return new Quit();
            }
            case UP, 'k', DOWN, 'j' -> {
                if (!jobs.isEmpty()) {
                    int at = selected.isPresent() ? Math.max(0, jobs.indexOf(selected.getAsInt())) : 0;
                    at = Math.floorMod(at + (key == UP || key == 'k' ? -1 : 1), jobs.size());
                    selectedIndex = at;
                    selected = OptionalInt.of(jobs.get(at));
                }
            }
            case 'c' -> {
                if (selected.isEmpty()) {
                    message = Optional.of(new Span("no job to cancel", Style.DIM));
                } else {
                    confirming = selected.getAsInt();
                    mode = Mode.CONFIRM_CANCEL;
                }
            }
            case 'p', 'r' -> {
                pausing = key == 'p';
                typed = "";
                mode = Mode.ASK_GPU;
            }
            default -> {
                // any other key: clears the last message
            }
        }
        return new Redraw();
    }

    private Action gpuKey(int key, TopSnapshot snap) {
        int highest = snap.gpus().stream().mapToInt(TopSnapshot.Gpu::index).max().orElse(Integer.MAX_VALUE / 10);
        if (key >= '0' && key <= '9' && typed.length() < 9) {
            typed += (char) key;
            // One key is enough where no longer index starts with what was typed (GPU 1 of 2; 0 always).
            if (typed.equals("0") || Long.parseLong(typed) * 10 > highest) {
                return pauseTyped();
            }
        } else if ((key == '\n' || key == '\r') && !typed.isEmpty()) {
            return pauseTyped();
        } else if (key == 127 || key == 8) {
            typed = typed.isEmpty() ? "" : typed.substring(0, typed.length() - 1);
        } else if (key == ESCAPE || key == 'q' || key == '\n' || key == '\r') {
            mode = Mode.KEYS;
        }
        return new Redraw();
    }

    private Action pauseTyped() {
        mode = Mode.KEYS;
        return new Pause(Integer.parseInt(typed), pausing);
    }

    /** @return the status line: the question being asked, the last outcome, or the keys */
    Span status(TopSnapshot snap) {
        return switch (mode) {
            case CONFIRM_CANCEL -> new Span("cancel job " + confirming + describe(confirming, snap) + "? y/n", Style.WARN);
            case ASK_GPU -> new Span((pausing ? "pause" : "resume") + " which GPU " + gpuRange(snap) + "? "
                    + (snap.gpus().size() > 10 ? "Enter ends it, " : "") + "Esc backs out: " + typed, Style.WARN);
            default -> message.orElse(new Span("q quit  " + (unicode ? "↑↓" : "up/down") + "/jk select  c cancel  "
                    + "p pause  r resume a GPU", Style.DIM));
        };
    }

    private static String describe(int no, TopSnapshot snap) {
        return snap.running().stream().filter(r -> r.no() == no).findFirst()
                .map(r -> " (" + (r.owner().isEmpty() ? "" : r.owner() + ": ") + r.command() + ")")
                .or(() -> snap.pending().stream().filter(p -> p.no() == no).findFirst()
                        .map(p -> " (" + (p.owner().isEmpty() ? "" : p.owner() + ": ") + p.command() + ")"))
                .orElse("");
    }

    private static String gpuRange(TopSnapshot snap) {
        List<Integer> gpus = snap.gpus().stream().map(TopSnapshot.Gpu::index).toList();
        return gpus.isEmpty() ? "(index)" : gpus.size() == 1 ? "(" + gpus.get(0) + ")"
                : "(" + gpus.get(0) + "-" + gpus.get(gpus.size() - 1) + ")";
    }
}
