package io.jrdma.nativetest.cluster;

import io.jrdma.nativetest.support.ToolRun;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Another node of the Soft-RoCE cluster this test runs in (node 1 of scripts/softroce-cluster), driven through its
 * {@link NodeAgent} over the control network: C tools and Java {@link NodeTask}s started there, faults injected on
 * its data link, its power cut.
 */
final class ClusterNode {
    private static final AtomicInteger IDS = new AtomicInteger();

    private final int number;
    private final InetAddress dataAddress;
    private final InetSocketAddress agent;

    private ClusterNode(int number) throws IOException {
        this.number = number;
        this.dataAddress = InetAddress.getByName(field("JRDMA_NODE_ADDRESSES", number));
        this.agent = new InetSocketAddress(field("JRDMA_CONTROL_ADDRESSES", number), NodeAgent.PORT);
    }

    /** Node 2, the peer of every two-node cluster test. */
    static ClusterNode peer() throws IOException {
        return new ClusterNode(2);
    }

    /** This node's data address (eth0, where its rxe0 is). */
    static InetAddress localDataAddress() throws IOException {
        return InetAddress.getByName(field("JRDMA_NODE_ADDRESSES", Integer.parseInt(env("JRDMA_NODE"))));
    }

    /** Whether the cluster's nodes are on two subnets joined by a router. */
    static boolean routed() throws IOException {
        return Boolean.parseBoolean(env("JRDMA_ROUTED"));
    }

    /** The node's data address: eth0, where its rxe0 is. */
    InetAddress dataAddress() {
        return dataAddress;
    }

    /** The node's control address (eth1), where its agent and the tasks' own TCP sockets listen. */
    InetAddress controlAddress() {
        return agent.getAddress();
    }

    /** Starts {@code command} on the node; its output (standard output and error) is kept for {@link Remote#await}. */
    Remote start(String... command) throws IOException {
        return start(List.of(command));
    }

    Remote start(List<String> command) throws IOException {
        String id = "p" + IDS.incrementAndGet();
        List<String> args = new ArrayList<>(List.of(id));
        args.addAll(command);
        request("start", args).orThrow("start " + command);
        return new Remote(id, String.join(" ", command));
    }

    /**
     * Starts {@code command} on the node; the future gives its status and output once it ended, or status
     * {@link NodeAgent#RUNNING} if it had not after {@code seconds} (it is killed then).
     */
    CompletableFuture<ToolRun> startProgram(List<String> command, int seconds) throws IOException {
        Remote r = start(command);
        return ToolRun.inBackground(command.getFirst(), () -> {
            try (r) {
                NodeAgent.Outcome o = r.await(Duration.ofSeconds(seconds));
                return new ToolRun(o.status(), o.output());
            }
        });
    }

    /** Runs {@code task} on the node, in its agent's JVM, with {@code args}. */
    Remote call(Class<? extends NodeTask> task, String... args) throws IOException {
        String id = "t" + IDS.incrementAndGet();
        List<String> all = new ArrayList<>(List.of(id, task.getName()));
        all.addAll(List.of(args));
        request("call", all).orThrow("call " + task.getSimpleName());
        return new Remote(id, task.getSimpleName());
    }

    /** Runs {@code command} on the node to its end, at most {@code timeout}; fails unless it exits 0. */
    String run(Duration timeout, String... command) throws IOException {
        return start(command).succeeded(timeout);
    }

    /** Waits until something on the node listens on TCP {@code port}. */
    void awaitListening(int port, Duration timeout) throws IOException {
        request("listening", List.of(Integer.toString(port), Long.toString(timeout.toMillis())))
                .orThrow("awaiting a listener on node " + number);
    }

    /**
     * Cuts the node's power: scripts/softroce-cluster kills its qemu, so nothing in the guest runs after it (no
     * disconnect, no FIN). Its agent is gone for good.
     */
    void powerOff() throws IOException {
        Files.createFile(Path.of(env("JRDMA_CLUSTER_DIR"), "poweroff", "node" + number));
    }

    @Override
    public String toString() {
        return "node " + number + " (" + dataAddress.getHostAddress() + ")";
    }

    /** Something started on the node. */
    final class Remote implements AutoCloseable {
        private final String id;
        private final String what;

        private Remote(String id, String what) {
            this.id = id;
            this.what = what;
        }

        /** Its outcome, or status {@link NodeAgent#RUNNING} with the output so far if it is still running after {@code timeout}. */
        NodeAgent.Outcome await(Duration timeout) throws IOException {
            return request("await", List.of(id, Long.toString(timeout.toMillis())));
        }

        /**
         * The first success of {@code attempt}, which connects to this server while it may still be starting (until
         * it listens, the connection manager rejects). Fails with the server's own outcome as soon as it ended, and
         * after {@code patience}.
         */
        <T> T whenListening(Duration patience, Callable<T> attempt) throws Exception {
            long deadline = System.nanoTime() + patience.toNanos();
            while (true) {
                try {
                    return attempt.call();
                } catch (Exception notYetListening) {
                    NodeAgent.Outcome o = await(Duration.ZERO);
                    if (o.status() != NodeAgent.RUNNING) {
                        throw new AssertionError("on " + ClusterNode.this + ": " + what
                                + " ended with status " + o.status() + " before a client connected:\n" + o.output(),
                                notYetListening);
                    }
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("on " + ClusterNode.this + ": " + what + " did not accept within "
                                + patience + "; its output so far:\n" + o.output(), notYetListening);
                    }
                    Thread.sleep(500);
                }
            }
        }

        /** Its output; fails unless it ended with status 0 within {@code timeout}. */
        String succeeded(Duration timeout) throws IOException {
            NodeAgent.Outcome o = await(timeout);
            if (o.status() != 0) {
                throw new AssertionError("on " + ClusterNode.this + ": " + what + (o.status() == NodeAgent.RUNNING
                        ? " did not end within " + timeout : " ended with status " + o.status()) + ":\n" + o.output());
            }
            return o.output();
        }

        /** Kills it (a process) or interrupts it (a task), if it still runs. */
        @Override
        public void close() throws IOException {
            request("kill", List.of(id)).orThrow("kill " + what);
        }

        @Override
        public String toString() {
            return what + " on " + ClusterNode.this;
        }
    }

    private NodeAgent.Outcome request(String verb, List<String> args) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(agent, 10_000);
            // An agent that stopped answering fails the test instead of hanging it; an await answers by its deadline.
            long patience = verb.equals("await") || verb.equals("listening") ? Long.parseLong(args.get(1)) : 0;
            s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, patience + 60_000));
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeUTF(verb);
            out.writeInt(args.size());
            for (String a : args) {
                out.writeUTF(a);
            }
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            int status = in.readInt();
            return new NodeAgent.Outcome(status, new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8));
        }
    }

    private static String field(String variable, int node) throws IOException {
        String[] values = env(variable).split(" ");
        if (node < 1 || node > values.length) {
            throw new IOException("the cluster has no node " + node + " (" + variable + "=" + env(variable) + ")");
        }
        return values[node - 1];
    }

    private static String env(String variable) throws IOException {
        String value = System.getenv(variable);
        if (value == null) {
            throw new IOException(variable + " is not set: cluster tests run on node 1 of scripts/softroce-cluster");
        }
        return value;
    }
}
