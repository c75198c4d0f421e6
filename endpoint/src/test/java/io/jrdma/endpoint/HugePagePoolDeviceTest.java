package io.jrdma.endpoint;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.DeviceAddresses;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.rdmacm.RemoteRegion;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker whose buffer pool takes 2 MiB huge pages, on rxe0: refused clearly while the kernel has none reserved,
 * then every byte of a chunk used and messages, a rendezvous and one-sided operations carried from and into it.
 * The test reserves the huge pages itself (the device tier runs as root in the guest) and gives them back.
 */
@RdmaDeviceTest
class HugePagePoolDeviceTest {
    private static final Path RESERVED = Path.of("/proc/sys/vm/nr_hugepages");
    private static final int HUGE_PAGE = 2 << 20;
    private static final int PAGE = 4096;

    @Test
    void aHugePagePoolSaysWhatIsMissingThenCutsEachPageIntoBuffersToItsLastByte(Device device) throws Exception {
        InetAddress ip = DeviceAddresses.ipv4(device);
        String before = Files.readString(RESERVED).trim();
        WorkerOptions options = WorkerOptions.defaults().withHugePages(true);
        try {
            reserve(0);
            try (Worker worker = Worker.start(ip, options, "huge-page-worker")) {
                UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                        () -> worker.buffers().allocate(PAGE));
                assertTrue(refused.getMessage().contains("nr_hugepages"), refused.getMessage());
                assertEquals(0, worker.buffers().registeredBytes());
            }

            // The client's chunks for 4 KiB and 1 MiB buffers, the server's for the large message: 8 pages do.
            reserve(16);
            EndpointDeviceTest.CheckingReceiver receiver = new EndpointDeviceTest.CheckingReceiver();
            try (WorkerPair pair = new WorkerPair(ip, options, options, receiver)) {
                BufferPool pool = pair.client.buffers();
                List<Buffer> page = new ArrayList<>();
                for (int i = 0; i < HUGE_PAGE / PAGE; i++) {
                    page.add(pool.allocate(PAGE));
                }
                assertEquals(HUGE_PAGE, pool.registeredBytes(), "one huge page holds 512 buffers of 4 KiB");
                long first = page.stream().mapToLong(b -> b.segment().address()).min().orElseThrow();
                long last = page.stream().mapToLong(b -> b.segment().address()).max().orElseThrow();
                assertEquals(0, first % HUGE_PAGE, "the chunk starts on a huge page");
                assertEquals(first + HUGE_PAGE - PAGE, last, "and its last buffer ends with it");

                Endpoint ep = pair.connect((e, m) -> m.release());
                List<CompletableFuture<Long>> sends = new ArrayList<>();
                for (int i = 0; i < page.size(); i++) {
                    EndpointDeviceTest.fill(page.get(i).segment(), i, PAGE);
                    sends.add(ep.send(page.get(i).region(), page.get(i).offset(), PAGE));
                }
                try (Buffer large = pool.allocate(1 << 20)) {
                    assertEquals(2L * HUGE_PAGE, pool.registeredBytes());
                    EndpointDeviceTest.fill(large.segment(), page.size(), 1 << 20);
                    sends.add(ep.send(large.region(), large.offset(), 1 << 20));   // by rendezvous
                    for (CompletableFuture<Long> f : sends) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                    EndpointDeviceTest.awaitCount(receiver.messages, page.size() + 1);
                    assertEquals(List.of(), List.copyOf(receiver.errors));
                    assertEquals((long) page.size() * PAGE + (1 << 20), receiver.bytes.get());

                    // One-sided: a page written from one huge-page buffer is read back into another.
                    RemoteRegion remote = WorkerPair.remote(ep);
                    Buffer from = page.get(7);
                    Buffer into = page.get(8);
                    into.segment().fill((byte) 0);
                    assertEquals((long) PAGE, ep.write(from.region(), from.offset(), PAGE, remote, 0)
                            .get(60, TimeUnit.SECONDS));
                    assertEquals((long) PAGE, ep.read(into.region(), into.offset(), PAGE, remote, 0)
                            .get(60, TimeUnit.SECONDS));
                    assertEquals(-1, from.segment().mismatch(into.segment()));
                    assertEquals(7L, into.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
                }
                page.forEach(Buffer::close);
                ep.close();
            }
        } finally {
            Files.writeString(RESERVED, before);
        }
    }

    /** Reserves {@code pages} huge pages beyond those in use, and checks the kernel found them. */
    private static void reserve(int pages) throws IOException {
        Files.writeString(RESERVED, Integer.toString(pages));
        long free = meminfo("HugePages_Free");
        assertEquals(pages, free, "the kernel reserved " + free + " of " + pages + " huge pages");
    }

    private static long meminfo(String key) throws IOException {
        return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith(key + ":"))
                .mapToLong(l -> Long.parseLong(l.substring(key.length() + 1).trim())).findFirst().orElseThrow();
    }
}
