package io.jrdma.netty.testsuite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Whether the tests run on a CPU that qemu emulates (TCG), as in the Soft-RoCE VM: there a JVM's steps run many
 * times slower than on hardware, and late by whole timer ticks when the host is busy, so a test of Netty's suite that
 * asserts wall-clock intervals or a fixed amount of work in a fixed time does not apply. Such a test names this
 * condition ({@code @DisabledIf("io.jrdma.netty.testsuite.EmulatedCpu#detected")}) and runs on hardware.
 */
final class EmulatedCpu {
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");

    private EmulatedCpu() {
    }

    /** True when this machine's CPU is qemu's TCG emulation. */
    static boolean detected() {
        try {
            return emulated(Files.readString(CPUINFO));
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * True when a {@code /proc/cpuinfo} names qemu's TCG CPU: the model qemu gives its {@code max} CPU under TCG
     * ("QEMU TCG CPU version ..."), which the VM boots with.
     */
    static boolean emulated(String cpuinfo) {
        return cpuinfo.lines()
                .filter(line -> line.startsWith("model name"))
                .anyMatch(line -> line.contains("QEMU TCG CPU"));
    }
}
