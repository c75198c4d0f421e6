package io.jrdma.nativetest.cluster;

import io.jrdma.nativetest.support.TcpListeners;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What runs on every cluster node but the first: it carries out the first node's requests ({@link ClusterNode}) over
 * the control network, so a cluster test can start C tools and Java {@link NodeTask}s here, wait for them, kill them
 * and inject faults, while the data network (eth0) is the one under test. It ends when the first node's run has
 * ended (the file {@code done} in the cluster directory).
 *
 * <p>A request is one connection: a verb and its string arguments; the reply is a status and a text.
 */
final class NodeAgent {
    static final int PORT = 7070;
    /** Status of {@code await} when the work is still running at the deadline. */
    static final int RUNNING = -1;

    private final Map<String, Work> work = new ConcurrentHashMap<>();

    /** A started process or task: its outcome once done, and how to stop it. */
    private record Work(CompletableFuture<Outcome> outcome, Runnable stop, Path log) {
    }

    record Outcome(int status, String output) {
        /** This outcome; an IOException naming {@code what} and carrying the output if it is not a success. */
        Outcome orThrow(String what) throws IOException {
            if (status != 0) {
                throw new IOException(what + " failed (" + status + "): " + output);
            }
            return this;
        }
    }

    public static void main(String[] args) throws Exception {
        Path done = Path.of(System.getenv("JRDMA_CLUSTER_DIR"), "done");
        int node = Integer.parseInt(System.getenv("JRDMA_NODE"));
        String address = System.getenv("JRDMA_CONTROL_ADDRESSES").split(" ")[node - 1];
        NodeAgent agent = new NodeAgent();
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(address, PORT));
            Thread.ofVirtual().start(() -> agent.serve(server));
            System.out.println("node agent: listening on " + address + ":" + PORT);
            while (!Files.exists(done)) {
                Thread.sleep(500);
            }
        }
        agent.work.values().forEach(w -> w.stop().run());
        System.out.println("node agent: node 1 is done; exiting");
        // Tasks may have left non-daemon threads behind.
        System.exit(0);
    }

    private void serve(ServerSocket server) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread.ofVirtual().start(() -> handle(s));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void handle(Socket socket) {
        try (socket; DataInputStream in = new DataInputStream(socket.getInputStream());
             DataOutputStream out = new DataOutputStream(socket.getOutputStream())) {
            String verb = in.readUTF();
            List<String> args = new ArrayList<>();
            for (int n = in.readInt(); n > 0; n--) {
                args.add(in.readUTF());
            }
            Outcome reply;
            try {
                reply = execute(verb, args);
            } catch (Exception e) {
                reply = new Outcome(1, "node agent: " + verb + " " + args + " failed: " + stackTrace(e));
            }
            out.writeInt(reply.status());
            byte[] text = reply.output().getBytes(StandardCharsets.UTF_8);
            out.writeInt(text.length);
            out.write(text);
        } catch (IOException e) {
            System.err.println("node agent: a request broke off: " + e);
        }
    }

    private Outcome execute(String verb, List<String> args) throws Exception {
        return switch (verb) {
            case "start" -> start(args.getFirst(), args.subList(1, args.size()));
            case "call" -> call(args.getFirst(), args.get(1), args.subList(2, args.size()));
            case "await" -> await(args.getFirst(), Long.parseLong(args.get(1)));
            case "kill" -> {
                Work w = work.remove(args.getFirst());
                if (w != null) {
                    w.stop().run();
                }
                yield new Outcome(0, "");
            }
            case "listening" -> listening(Integer.parseInt(args.getFirst()), Long.parseLong(args.get(1)));
            default -> throw new IllegalArgumentException("unknown verb " + verb);
        };
    }

    private Outcome start(String id, List<String> command) throws IOException {
        Path log = Files.createTempFile("node-agent-" + id, ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        CompletableFuture<Outcome> outcome = p.onExit().thenApply(done -> new Outcome(done.exitValue(), read(log)));
        put(id, new Work(outcome, () -> p.destroyForcibly(), log));
        return new Outcome(0, "pid " + p.pid());
    }

    private Outcome call(String id, String className, List<String> args) throws ReflectiveOperationException {
        NodeTask task = Class.forName(className).asSubclass(NodeTask.class).getDeclaredConstructor().newInstance();
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().name("task-" + id).start(() -> {
            try {
                outcome.complete(new Outcome(0, task.run(args)));
            } catch (Throwable e) {
                outcome.complete(new Outcome(1, stackTrace(e)));
            }
        });
        put(id, new Work(outcome, t::interrupt, null));
        return new Outcome(0, "");
    }

    private void put(String id, Work w) {
        if (work.putIfAbsent(id, w) != null) {
            w.stop().run();
            throw new IllegalStateException("work " + id + " already exists");
        }
    }

    private Outcome await(String id, long millis) throws Exception {
        Work w = work.get(id);
        if (w == null) {
            throw new IllegalArgumentException("no work " + id);
        }
        try {
            Outcome o = w.outcome().get(millis, TimeUnit.MILLISECONDS);
            work.remove(id);
            return o;
        } catch (TimeoutException running) {
            return new Outcome(RUNNING, w.log() == null ? "" : read(w.log()));
        }
    }

    /** Whether something on this node listens on TCP {@code port}, waiting up to {@code millis} for it. */
    private static Outcome listening(int port, long millis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        do {
            if (TcpListeners.listening(port)) {
                return new Outcome(0, "");
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return new Outcome(1, "nothing listens on TCP port " + port);
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(cannot read the output: " + e + ")";
        }
    }

    private static String stackTrace(Throwable e) {
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
