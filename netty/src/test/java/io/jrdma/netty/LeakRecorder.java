package io.jrdma.netty;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detection at PARANOID (every buffer tracked), with every leak it reports recorded for the tests to
 * assert on rather than only logged. Installed before any of Netty's buffer classes is loaded, since each makes its
 * detector once, when it loads.
 */
final class LeakRecorder {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static boolean installed;

    private LeakRecorder() {
    }

    static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                ResourceLeakDetector<T> detector = new ResourceLeakDetector<>(resource, samplingInterval);
                detector.setLeakListener((type, records) -> LEAKS.add(type + ": " + records));
                return detector;
            }
        });
    }

    /** The leaks reported so far; a detector reports those the GC found when it next tracks a buffer. */
    static List<String> leaks() {
        return List.copyOf(LEAKS);
    }

    /**
     * The leaks reported once the GC has run: the detector (one for every kind of buffer) reports what it found when
     * it next tracks a buffer, so one buffer is taken and given back after the collection.
     */
    static List<String> leaksAfterCollection() throws InterruptedException {
        System.gc();
        Thread.sleep(200);
        PooledByteBufAllocator.DEFAULT.directBuffer(16).release();
        return leaks();
    }
}
