package io.gpusched.cli;

import io.gpusched.event.TerminalText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Optional;
import java.util.Set;

/**
 * Another user's job output, as {@code gpusched logs N} and {@code attach N} show it to root or an admin:
 * the file is the job's, in the job's directory, so its owner chooses what is there. It is opened only
 * when it is a regular file of the job's owner, never through a symbolic link, so {@code sudo gpusched
 * logs N} cannot be made to print a file of root's ({@code gpusched-N.log -> /etc/shadow}, or a
 * directory on the path turned into a link to {@code /etc}) or wait on a device. (A job runs as its
 * owner, and so writes its output as them; in a daemon of one user's, as that user, its owner too.)
 * Its bytes are shown as text, each line through {@link TerminalText#escape}, so a job cannot send
 * escape sequences to the reader's terminal (a title, an OSC 52 clipboard write, a screen clear) nor
 * overwrite what a line said with a {@code \r}: they are written as visible escapes, as the queue and
 * the daemon's log write them. The reader's own output is copied as it is (progress bars, colours).
 *
 * <p>One per read of a job's logs: it keeps an incomplete UTF-8 sequence at the end of one read for
 * the next, so a character split across reads is shown whole. Bytes that are not UTF-8 are shown as
 * U+FFFD.
 */
final class OthersOutput {
    /**
     * How long an open may take, in ms. A regular file opens at once; a FIFO put in its place between the
     * look and the open would wait for a writer, for as long as its owner likes.
     */
    static final long OPEN_MILLIS = 2000;
    /** The files whose open did not end in time: not tried again (each try would leave a thread waiting). */
    private final Set<Path> stuck = new java.util.HashSet<>();

    private final String owner;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer carried = ByteBuffer.allocate(0);

    /** @param owner the job's owner, whose file its output must be */
    OthersOutput(String owner) {
        this.owner = owner;
    }

    /**
     * Opens {@code file} if it is one this reader may be shown.
     *
     * @return the open file
     * @throws IOException with why not, said for the reader: a link, not a regular file, or not the owner's
     */
    FileChannel open(Path file) throws IOException {
        PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            throw new IOException("it is a symbolic link, and another user's job's output is not read through one");
        }
        if (!a.isRegularFile()) {
            throw new IOException("it is not a regular file (a FIFO, device or directory), and another user's job's"
                    + " output is read only from one");
        }
        if (!a.owner().getName().equals(owner)) {
            throw new IOException("it belongs to " + a.owner().getName() + ", not to the job's owner");
        }
        if (stuck.contains(file)) {
            throw new IOException("it did not open before (a FIFO put there since it was looked at?)");
        }
        return openWithin(file, OPEN_MILLIS);
    }

    /**
     * Opens {@code file} for reading, never through a symbolic link (one swapped in since the look is
     * refused by the open itself), on a thread of its own, waiting {@code millis} for it.
     *
     * @throws IOException when it cannot be opened, or did not open in time (its thread is left waiting,
     *     a daemon thread, which ends with this process)
     */
    FileChannel openWithin(Path file, long millis) throws IOException {
        java.util.concurrent.CompletableFuture<FileChannel> opened = new java.util.concurrent.CompletableFuture<>();
        Thread opener = new Thread(() -> {
            try {
                opened.complete(FileChannel.open(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)));
            } catch (IOException | RuntimeException e) {
                opened.completeExceptionally(e);
            }
        }, "gpusched-logs-open");
        opener.setDaemon(true);
        opener.start();
        try {
            return opened.get(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            stuck.add(file);
            throw new IOException("it did not open within " + millis + " ms (a FIFO put there since it was looked at?)");
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while it opened");
        }
    }

    /**
     * @param bytes what was read
     * @param n how many of them
     * @return them as text safe for a terminal, UTF-8; a character cut at the end waits for the next call
     */
    byte[] text(byte[] bytes, int n) {
        ByteBuffer in = ByteBuffer.allocate(carried.remaining() + n);
        in.put(carried).put(bytes, 0, n).flip();
        CharBuffer chars = CharBuffer.allocate(in.remaining() + 1);
        decoder.decode(in, chars, false);
        carried = in.slice();
        chars.flip();
        StringBuilder shown = new StringBuilder(chars.length() + 16);
        int start = 0;
        for (int i = 0; i < chars.length(); i++) {
            if (chars.charAt(i) == '\n') {
                shown.append(TerminalText.escape(chars.subSequence(start, i).toString())).append('\n');
                start = i + 1;
            }
        }
        // A surrogate pair cut by the buffer's end is not possible: the decoder leaves its bytes carried.
        shown.append(TerminalText.escape(chars.subSequence(start, chars.length()).toString()));
        return shown.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param owner the job's owner, when the queue says
     * @param reader who reads
     * @return how this reader is shown the job's output: empty for their own job, copied as it is
     */
    static Optional<OthersOutput> forReader(Optional<String> owner, String reader) {
        return owner.filter(o -> !o.equals(reader)).map(OthersOutput::new);
    }
}
