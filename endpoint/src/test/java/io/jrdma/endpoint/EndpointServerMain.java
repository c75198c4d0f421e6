package io.jrdma.endpoint;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.MemoryRegion;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A server in a JVM of its own, for tests that kill it: a worker on the address in {@code args[0]} that accepts
 * every endpoint, releases every message and advertises a region of 1 MiB; it prints {@code listening PORT} and
 * runs until it is killed.
 */
public final class EndpointServerMain {
    private EndpointServerMain() {
    }

    public static void main(String[] args) throws Exception {
        Worker worker = Worker.start(InetAddress.getByName(args[0]), WorkerOptions.defaults(), "child-server");
        MemoryRegion exposed = worker.protectionDomain().allocate(WorkerPair.EXPOSED, Access.LOCAL_WRITE,
                Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
        EndpointListener listener = worker.listen(new InetSocketAddress(args[0], 0), 16,
                request -> request.accept((ep, m) -> m.release(), WorkerPair.advertise(exposed))).get();
        System.out.println("listening " + listener.localAddress().getPort());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
