package io.jrdma.endpoint.snippets;

import io.jrdma.endpoint.Buffer;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointHandler;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.GatherList;
import io.jrdma.endpoint.OperationHandler;
import io.jrdma.endpoint.ReceivedMessage;
import io.jrdma.endpoint.Worker;
import io.jrdma.endpoint.WorkerOptions;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.rdmacm.RemoteRegion;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/** Workers, endpoints, buffers and handlers. */
final class EndpointSnippets {

    void worker(InetAddress deviceAddress, InetSocketAddress server) throws Exception {
        // @start region="worker"
        try (Worker worker = Worker.start(deviceAddress, WorkerOptions.defaults(), "rdma-worker")) {
            Endpoint ep = worker.connect(server, (e, message) -> message.release(), null, Duration.ofSeconds(10)).get();
            try (Buffer buf = worker.buffers().allocate(4096)) {
                buf.segment().setString(0, "hello");
                ep.send(buf.region(), buf.offset(), 6).get();      // any thread; completes when acknowledged
            }
            ep.close();
        }
        // @end
    }

    void listen(Worker worker, InetAddress deviceAddress, EndpointHandler handler) throws Exception {
        // @start region="listen"
        EndpointListener listener = worker.listen(new InetSocketAddress(deviceAddress, 7471), 128, request -> {
            if (request.privateData().length == 0) {
                request.accept(handler, null);                         // the endpoint opens on the worker
            } else {
                request.reject("unknown client".getBytes());
            }
        }).get();
        // @end
    }

    /** The application's own event loop, e.g. an epoll instance that watches several descriptors. */
    interface EventLoop {
        void waitUntilReadable(int fd) throws IOException;
    }

    void arm(Worker worker, EventLoop loop) throws IOException {
        // @start region="arm"
        int fd = worker.fileDescriptor();
        while (!worker.isClosed()) {
            if (worker.arm()) {                 // nothing to do: the worker may sleep
                loop.waitUntilReadable(fd);     // epoll_wait, poll(2), ... with the application's other descriptors
            }
            worker.progress();                  // completions, handlers, CM events, tasks, timers
        }
        // @end
    }

    void registrations(Worker worker, Endpoint ep) throws Exception {
        // @start region="registrations"
        try (Arena arena = Arena.ofShared()) {
            MemorySegment data = arena.allocate(1 << 20);
            MemoryRegion region = worker.registrations().regionOf(data, arena);   // registered once, found again
            ep.send(region, data.address() - region.address(), 4096);
        }   // the close waits for the send, then deregisters the memory and frees it
        // @end
    }

    // @start region="handler"
    /** Counts messages, releases each at once, and pipelines sends from the worker's thread without allocating. */
    static final class Pipeline implements EndpointHandler, OperationHandler<Buffer> {
        long received;
        long completed;

        @Override
        public void onMessage(Endpoint endpoint, ReceivedMessage message) {
            received += message.segment().get(ValueLayout.JAVA_BYTE, 0);
            message.release();                       // the buffer goes back, the sender gets its credit
        }

        @Override
        public void onWritable(Endpoint endpoint) {
            // credits or queue slots are back: try again what trySend refused
        }

        @Override
        public void completed(long bytes, Buffer buffer) {
            completed++;
        }

        @Override
        public void failed(Throwable failure, Buffer buffer) {
            System.err.println("send failed: " + failure);
        }

        boolean sendOne(Endpoint ep, Buffer buffer) throws RdmaException {
            return ep.trySend(buffer.region(), buffer.offset(), 64, this, buffer);   // false: back-pressure
        }
    }
    // @end

    void endpoint(Endpoint ep, Buffer local, RemoteRegion counter) throws Exception {
        // @start region="endpoint"
        long before = ep.fetchAndAdd(counter, 0, 1).get();              // the peer advertised counter
        ep.read(local.region(), local.offset(), 8, counter, 0)
                .thenAccept(n -> System.out.println(local.segment().get(ValueLayout.JAVA_LONG, 0)));
        ep.close();                                                     // lets the read finish, then disconnects
        // @end
    }

    void buffers(Worker worker) throws RdmaException {
        // @start region="buffers"
        try (Buffer b = worker.buffers().allocate(1000)) {              // a 1024-byte buffer, registered once
            b.segment().fill((byte) 7);
        }                                                              // back in the pool
        // @end
    }

    void gather(Worker worker, Endpoint ep, MemorySegment payload, MemoryRegion payloadRegion) throws Exception {
        // @start region="gather"
        try (Buffer header = worker.buffers().allocate(16)) {
            header.segment().set(ValueLayout.JAVA_LONG, 0, payload.byteSize());
            GatherList message = new GatherList()
                    .add(header.region(), header.offset(), 8)                                   // the length
                    .add(payloadRegion, payload.address() - payloadRegion.address(), (int) payload.byteSize());
            ep.send(message).get();          // one message: the length, then the payload, neither copied
        }
        // @end
    }

    void options() {
        // @start region="options"
        WorkerOptions options = WorkerOptions.defaults()
                .withMessageSize(64 * 1024)
                .withCredits(16, 256)                                     // 4096 receive buffers of 64 KiB
                .withFailureDetection(Duration.ofSeconds(1), 14, 6);
        // @end
    }

    void unused() throws IOException {
    }
}
