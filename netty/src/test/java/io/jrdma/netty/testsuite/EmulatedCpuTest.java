package io.jrdma.netty.testsuite;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmulatedCpuTest {
    @Test
    void namesQemusTcgCpu() {
        assertTrue(EmulatedCpu.emulated("""
                processor\t: 0
                vendor_id\t: AuthenticAMD
                model name\t: QEMU TCG CPU version 2.5+
                flags\t\t: fpu vme hypervisor
                """));
    }

    @Test
    void hardwareAndKvmGuestsAreNotEmulated() {
        assertFalse(EmulatedCpu.emulated("""
                processor\t: 0
                model name\t: AMD EPYC 7B13
                flags\t\t: fpu vme hypervisor
                """));
        assertFalse(EmulatedCpu.emulated("model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"));
        assertFalse(EmulatedCpu.emulated(""));
    }
}
