package io.jrdma.nativetest.safety;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.MemoryWindow;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * "Least privilege": what a peer may do to this side's memory is only what was granted, and the device enforces it.
 * Each refused remote operation must fail with a remote access error and leave the target memory untouched.
 */
@RdmaDeviceTest
class LeastPrivilegeDeviceTest {
    private static final byte MARK = 7;
    private static final byte DATA = 9;

    @Test
    void aRegionRegisteredWithoutAccessFlagsIsLocalOnly(Context ctx) throws Exception {
        for (SendOpcode op : new SendOpcode[] {SendOpcode.RDMA_WRITE, SendOpcode.RDMA_READ}) {
            for (boolean guessLocalKey : new boolean[] {false, true}) {
                try (RcPair p = new RcPair(ctx, QpType.RC);
                     MemoryRegion local = p.pd.allocate(4096)) {
                    local.segment().fill(MARK);
                    p.mrA.segment().fill(DATA);
                    int key = guessLocalKey ? local.localKey() : local.remoteKey();
                    p.a.postSend(new SendWorkRequest(1).id(1).opcode(op).signaled(true).add(p.mrA, 0, 64)
                            .rdma(local.address(), key));
                    assertEquals(WcStatus.REM_ACCESS_ERR, awaitCompletion(p.cqA).status(0), op + " key " + key);
                    expectAll(local.segment(), MARK, "the local-only region");
                    expectAll(p.mrA.segment().asSlice(0, 64), DATA, "the reader's buffer");
                }
            }
        }
    }

    @Test
    void aRegionOfAnotherProtectionDomainIsUnusableFromAQueuePair(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             ProtectionDomain other = ctx.allocateProtectionDomain();
             MemoryRegion foreign = other.allocate(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)) {
            foreign.segment().fill(MARK);
            // Locally: refused before the device sees it.
            assertThrows(IllegalArgumentException.class, () -> p.a.postSend(new SendWorkRequest(1)
                    .opcode(SendOpcode.SEND).add(foreign, 0, 64)));
            // Remotely: the peer's queue pair is in p.pd, the region in another domain; the device refuses.
            p.mrA.segment().fill(DATA);
            p.a.postSend(new SendWorkRequest(1).id(1).opcode(SendOpcode.RDMA_WRITE).signaled(true).add(p.mrA, 0, 64)
                    .rdma(foreign.address(), foreign.remoteKey()));
            assertEquals(WcStatus.REM_ACCESS_ERR, awaitCompletion(p.cqA).status(0));
            expectAll(foreign.segment(), MARK, "the other domain's region");
        }
    }

    @Test
    void aRevokedWindowRefusesRemoteWritesAtOnce(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             MemoryRegion target = p.pd.allocate(4096, Access.LOCAL_WRITE, Access.MW_BIND);
             MemoryWindow mw = p.pd.allocateMemoryWindow(MemoryWindow.Type.TYPE_1)) {
            int rkey = mw.bind(p.b, target, 0, 64, Access.REMOTE_WRITE);
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqB).status(0));
            p.mrA.segment().fill(DATA);
            SendWorkRequest write = new SendWorkRequest(1);
            p.a.postSend(write.reset().id(1).opcode(SendOpcode.RDMA_WRITE).signaled(true).add(p.mrA, 0, 64)
                    .rdma(target.address(), rkey));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0), "granted");
            expectAll(target.segment().asSlice(0, 64), DATA, "the window while bound");

            target.segment().fill(MARK);
            mw.unbind(p.b);
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqB).status(0));
            p.a.postSend(write.reset().id(2).opcode(SendOpcode.RDMA_WRITE).signaled(true).add(p.mrA, 0, 64)
                    .rdma(target.address(), rkey));
            assertEquals(WcStatus.REM_ACCESS_ERR, awaitCompletion(p.cqA).status(0), "revoked");
            expectAll(target.segment(), MARK, "the window after revocation");
        }
    }

    @Test
    void inlineDataBeyondTheQueuePairsLimitIsRefusedBeforeTheDevice(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            int max = p.a.capabilities().maxInlineData();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.a.postSend(
                    new SendWorkRequest(1).opcode(SendOpcode.SEND).inline(true).add(p.mrA, 0, max + 1)));
            assertEquals("inline send of " + (max + 1) + " bytes; this queue pair inlines at most " + max,
                    e.getMessage());
        }
    }

    private static void expectAll(MemorySegment s, byte value, String what) {
        for (long i = 0; i < s.byteSize(); i++) {
            assertEquals(value, s.get(ValueLayout.JAVA_BYTE, i), what + " at byte " + i);
        }
    }
}
