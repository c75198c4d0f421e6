package io.jrdma.nio;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Picks each bind's and connect's transport by the rules, after checking an RDMA device serves the address, and
 * the options a new socket of that transport starts with.
 */
final class Router {
    private final Rules rules;
    private final DeviceChecks checks = new DeviceChecks();
    private final int bufferSize;
    private final ConnectService.Mode connectService;

    /**
     * {@code bufferSize}: of every rsocket, as {@link BufferSize} checked it, or {@link BufferSize#DEFAULT};
     * {@code connectService}: when the first RDMA connect or listen makes room in librdmacm's connection service.
     */
    Router(Rules rules, int bufferSize, ConnectService.Mode connectService) {
        this.rules = rules;
        this.bufferSize = bufferSize;
        this.connectService = connectService;
    }

    Rules rules() {
        return rules;
    }

    int bufferSize() {
        return bufferSize;
    }

    ConnectService.Mode connectService() {
        return connectService;
    }

    /** Before an rsocket connects to {@code remote}: {@link ConnectService}'s room, from the device it leaves by. */
    void beforeRdmaConnect(InetAddress remote) throws IOException {
        ConnectService.prepare(connectService, () -> RdmaDevices.source(remote));
    }

    /** Before an rsocket bound to {@code local} listens: {@link ConnectService}'s room, made from {@code local}. */
    void beforeRdmaListen(InetAddress local) throws IOException {
        ConnectService.prepare(connectService, () -> local);
    }

    /** What a new socket of {@code transport} is set to before the options its channel was given. */
    Map<SocketOption<?>, Object> presets(Transport transport) {
        return transport.isRdma() ? BufferSize.rsocketOptions(bufferSize) : Map.of();
    }

    /** The transport of a socket that binds to {@code local}. */
    Transport forBind(InetSocketAddress local) throws IOException {
        return pick(Rules.Operation.BIND, local, BindException::new);
    }

    /** The transport of a socket, not bound before, that connects to {@code remote}. */
    Transport forConnect(InetSocketAddress remote) throws IOException {
        return pick(Rules.Operation.CONNECT, remote, ConnectException::new);
    }

    private Transport pick(Rules.Operation operation, InetSocketAddress address,
                           Function<String, IOException> refusal) throws IOException {
        Optional<Rules.Rule> rule = rules.match(operation, address);
        if (rule.isEmpty() || !rule.get().rdma()) {
            return Transport.TCP;
        }
        boolean bind = operation == Rules.Operation.BIND;
        UnsatisfiedLinkError missing = RdmaLibrary.loadFailure();
        String problem = missing != null ? missing.getMessage() : checks.problem(bind, address.getAddress());
        if (problem == null) {
            return Transport.rdma();
        }
        if (rules.fallbackToTcp()) {
            return Transport.TCP;
        }
        throw refusal.apply(message(rule.get(), bind ? "bind " + address : "connect to " + address, problem));
    }

    private static String message(Rules.Rule rule, String what, String problem) {
        return rule + " sends the " + what + " over RDMA, but " + problem + "; set -D" + Rules.FALLBACK_PROPERTY
                + "=tcp to use TCP where no RDMA device serves the address";
    }
}
