package io.jrdma.dockertest;

import com.github.dockerjava.api.model.Device;
import com.github.dockerjava.api.model.Ulimit;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * A container of the jrdma Soft-RoCE node image (docker/), given what RDMA needs: this machine's
 * {@code /dev/infiniband} devices, an unlimited locked-memory limit and the host network, where the RDMA device and
 * its address are.
 *
 * <pre>{@code
 * try (SoftRoceNode node = new SoftRoceNode("jrdma", "devices")) {
 *     node.start();
 *     assertEquals(0, node.awaitExit());
 * }
 * }</pre>
 *
 * <p>The image ({@value #IMAGE_PROPERTY}, default {@value #DEFAULT_IMAGE}) is built locally by
 * {@code docker/build} and never pulled.
 */
final class SoftRoceNode extends GenericContainer<SoftRoceNode> {
    static final String IMAGE_PROPERTY = "jrdma.node.image";
    static final String DEFAULT_IMAGE = "jrdma/softroce-node:latest";
    static final String IMAGE = System.getProperty(IMAGE_PROPERTY, DEFAULT_IMAGE);

    SoftRoceNode(String... command) {
        super(DockerImageName.parse(IMAGE));
        withImagePullPolicy(image -> false);
        withNetworkMode("host");
        withCommand(command);
        withStartupTimeout(Duration.ofMinutes(5));
        List<Device> devices = rdmaDevices();
        withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                .withDevices(devices)
                .withUlimits(new Ulimit[] {new Ulimit("memlock", -1L, -1L)}));
    }

    /** Waits for the command to end; its exit status. */
    int awaitExit() {
        return DockerClientFactory.instance().client().waitContainerCmd(getContainerId()).start().awaitStatusCode();
    }

    private static List<Device> rdmaDevices() {
        try (Stream<Path> nodes = Files.list(Path.of("/dev/infiniband"))) {
            return nodes.map(p -> new Device("rwm", p.toString(), p.toString())).toList();
        } catch (IOException e) {
            throw new IllegalStateException("no /dev/infiniband on this machine: " + e.getMessage(), e);
        }
    }
}
