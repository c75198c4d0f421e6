package io.jrdma.nativetest.verbs;

import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpAttributes;
import io.jrdma.ibverbs.QpState;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.RdmaUnsupportedException;
import io.jrdma.ibverbs.SendOpcode;
import io.jrdma.ibverbs.SendWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.junit.RdmaDeviceTest;
import io.jrdma.nativetest.support.RcPair;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.jrdma.nativetest.support.DeviceSupport.awaitCompletion;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.expect;
import static io.jrdma.nativetest.verbs.RcDataPathDeviceTest.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queue pair queries, re-registration, huge pages, dma-buf, advice, and what the device cannot do said clearly.
 */
@RdmaDeviceTest
class MoreVerbsDeviceTest {

    @Test
    void queryReportsWhatConnectSet(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC)) {
            QpAttributes a = p.a.query();
            assertEquals(QpState.RTS, a.state());
            assertEquals(p.b.qpNumber(), a.destQpNumber());
            assertEquals(0x200, a.sendPsn());
            assertEquals(0x100, a.receivePsn());
            assertEquals(ctx.queryPort(1).activeMtu(), a.pathMtu());
            assertEquals(1, a.port());
            assertEquals(4, a.maxReadAtomic());
            assertEquals(6, a.retryCount(), "the default: Soft-RoCE retries forever at 7");
            assertTrue(a.capabilities().maxSendWr() >= 32, a.toString());
            p.a.reset();
            assertEquals(QpState.RESET, p.a.query().state());
        }
    }

    @Test
    void reRegistrationChangesTheRightsPeersHave(Context ctx) throws Exception {
        try (RcPair p = new RcPair(ctx, QpType.RC);
             MemoryRegion target = p.pd.allocate(4096, Access.LOCAL_WRITE)) {
            SendWorkRequest write = new SendWorkRequest(1);
            p.a.postSend(write.reset().id(1).opcode(SendOpcode.RDMA_WRITE).signaled(true).add(p.mrA, 0, 64)
                    .rdma(target.address(), target.remoteKey()));
            assertEquals(WcStatus.REM_ACCESS_ERR, awaitCompletion(p.cqA).status(0), "no remote write granted");
            p.a.reset();
            p.b.reset();
            p.connect();
            try {
                target.changeAccess(Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            } catch (RdmaException e) {
                assertEquals("EOPNOTSUPP", e.errnoName(), "only an unsupported rereg may fail: " + e.getMessage());
                return;
            }
            assertTrue(target.access().contains(Access.REMOTE_WRITE));
            fill(p.mrA.segment(), 0, 64, 4);
            p.a.postSend(write.reset().id(2).opcode(SendOpcode.RDMA_WRITE).signaled(true).add(p.mrA, 0, 64)
                    .rdma(target.address(), target.remoteKey()));
            assertEquals(WcStatus.SUCCESS, awaitCompletion(p.cqA).status(0));
            expect(target.segment(), 0, 0, 64, 4);
        }
    }

    @Test
    void hugePagesRegisterWhenTheKernelHasThem(Context ctx) throws Exception {
        Path nr = Path.of("/proc/sys/vm/nr_hugepages");
        if (Files.readString(nr).trim().equals("0") && Files.isWritable(nr)) {
            Files.writeString(nr, "4");
        }
        boolean available = !Files.readString(nr).trim().equals("0");
        try (ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            if (available) {
                try (MemoryRegion mr = pd.allocateHugePages(2 << 20, Access.LOCAL_WRITE)) {
                    assertEquals(2 << 20, mr.length());
                    assertEquals(0, mr.address() % (2 << 20), "huge-page aligned");
                    mr.segment().set(ValueLayout.JAVA_LONG, (2 << 20) - 8, 42L);
                }
            } else {
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                        () -> pd.allocateHugePages(2 << 20, Access.LOCAL_WRITE));
                assertTrue(e.getMessage().contains("nr_hugepages"), e.getMessage());
            }
        }
    }

    @Test
    void xrcAndRawPacketAreRefusedClearlyWhereTheDeviceCannot(Context ctx) throws Exception {
        boolean xrc = (ctx.queryDevice().deviceCapFlags() & ibverbs_h.IBV_DEVICE_XRC()) != 0;
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             var cq = ctx.createCompletionQueue(4)) {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> pd.queuePair(QpType.XRC_SEND).completionQueue(cq).create());
            assertTrue(e.getMessage().contains(xrc ? "no XRC domains yet" : "has no XRC"), e.getMessage());
            // Raw packet QPs need a NIC (and CAP_NET_RAW) that has them; elsewhere the verb says no, clearly.
            try (var raw = pd.queuePair(QpType.RAW_PACKET).completionQueue(cq).create()) {
                assertEquals(QpType.RAW_PACKET, raw.type());
            } catch (RdmaException refused) {
                assertEquals("ibv_create_qp", refused.verb());
            }
        }
    }

    @Test
    void adviceNeedsOnDemandPagingAndSaysSo(Context ctx) throws Exception {
        boolean odp = ctx.queryDeviceEx().supportsOnDemandPaging();
        try (ProtectionDomain pd = ctx.allocateProtectionDomain();
             MemoryRegion mr = odp ? pd.allocate(1 << 16, Access.LOCAL_WRITE, Access.ON_DEMAND)
                     : pd.allocate(1 << 16, Access.LOCAL_WRITE)) {
            assertThrows(IndexOutOfBoundsException.class,
                    () -> mr.advise(MemoryRegion.Advice.PREFETCH, true, 1 << 15, 1 << 16));
            if (odp) {
                mr.advise(MemoryRegion.Advice.PREFETCH_WRITE, true, 0, 1 << 16);
            } else {
                RdmaException e = assertThrows(RdmaUnsupportedException.class,
                        () -> mr.advise(MemoryRegion.Advice.PREFETCH_WRITE, true, 0, 1 << 16));
                assertEquals("EOPNOTSUPP", e.errnoName());
                assertTrue(e.getMessage().contains("has no on-demand paging"), e.getMessage());
            }
        }
    }

    @Test
    void dmaBufMemoryRegistersOrIsRefusedClearly(Context ctx) throws Throwable {
        try (Arena arena = Arena.ofConfined(); ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            int fd = UserDmaBuf.create(arena, 1 << 16);
            try {
                try (MemoryRegion mr = pd.registerDmaBuf(fd, 0, 1 << 16, 0, Access.LOCAL_WRITE);
                     CompletionQueue cq = ctx.createCompletionQueue(4);
                     QueuePair qp = pd.queuePair(QpType.RC).completionQueue(cq).maxInlineData(64).create()) {
                    assertEquals(1 << 16, mr.length());
                    assertTrue(mr.localKey() != 0 || mr.remoteKey() != 0);
                    assertThrows(IllegalStateException.class, mr::segment);
                    // The CPU would copy inline data from the region's address, an IOVA this process never mapped.
                    assertThrows(IllegalArgumentException.class, () -> qp.postSend(new SendWorkRequest(1)
                            .inline(true).add(mr, 0, 64)));
                } catch (RdmaUnsupportedException refused) {
                    assertEquals("EOPNOTSUPP", refused.errnoName(), refused.getMessage());
                    assertTrue(refused.getMessage().contains(ctx.device().name()
                            + " cannot register dma-buf memory"), refused.getMessage());
                }
            } finally {
                UserDmaBuf.close(fd);
            }
            assertThrows(IllegalArgumentException.class, () -> pd.registerDmaBuf(-1, 0, 4096, 0));
            assertThrows(IllegalArgumentException.class, () -> pd.registerDmaBuf(0, 0, 0, 0));
        }
    }
}
