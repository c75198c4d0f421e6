package io.jrdma.tool.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The JIT compiler threads of this JVM and the CPU time they have run, from Linux's scheduler statistics
 * ({@code /proc/self/task/<tid>/schedstat}, nanoseconds). The threads are those alive when it is made: HotSpot
 * adds compiler threads while its queues are long and removes them when idle, but keeps the first of each
 * compiler, which takes queued tasks whenever there are any.
 */
final class CompilerThreads implements AutoCloseable {
    private static final Path TASKS = Path.of("/proc/self/task");

    private final List<FileChannel> schedstats;
    private final ByteBuffer buffer = ByteBuffer.allocate(128);

    private CompilerThreads(List<FileChannel> schedstats) {
        this.schedstats = schedstats;
    }

    /** This JVM's compiler threads; none where there is no {@code /proc} or no scheduler statistics. */
    static CompilerThreads find() {
        List<FileChannel> found = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(TASKS)) {
            for (Path task : tasks.toList()) {
                if (isCompiler(task)) {
                    found.add(FileChannel.open(task.resolve("schedstat")));
                }
            }
        } catch (IOException | UncheckedIOException e) {
            found.forEach(CompilerThreads::closeQuietly);
            found.clear();
        }
        return new CompilerThreads(found);
    }

    private static boolean isCompiler(Path task) {
        try {
            // "C1 CompilerThread0", "C2 CompilerThread0", "JVMCI CompilerThread0", cut to the kernel's 15 bytes.
            return Files.readString(task.resolve("comm")).contains("CompilerT");
        } catch (IOException e) {
            return false;   // the thread ended meanwhile
        }
    }

    int count() {
        return schedstats.size();
    }

    /** The CPU time the threads have run; a thread that has ended counts as none, which reads as activity. */
    long cpuNanos() {
        long sum = 0;
        for (int i = 0; i < schedstats.size(); i++) {
            buffer.clear();
            try {
                schedstats.get(i).read(buffer, 0);
                sum += leadingNumber(buffer.flip());
            } catch (IOException e) {
                // ended: adds nothing
            }
        }
        return sum;
    }

    /** The first field of a schedstat line ("run-time wait-time timeslices"). */
    static long leadingNumber(ByteBuffer line) {
        long value = 0;
        while (line.hasRemaining()) {
            int digit = line.get() - '0';
            if (digit < 0 || digit > 9) {
                break;
            }
            value = value * 10 + digit;
        }
        return value;
    }

    @Override
    public void close() {
        schedstats.forEach(CompilerThreads::closeQuietly);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // read-only: nothing to lose
        }
    }
}
