package io.jrdma.nativetest.abi;

import io.jrdma.bindings.ibverbs.ibv_qp_init_attr;
import io.jrdma.bindings.ibverbs.ibv_qp_init_attr_ex;
import io.jrdma.bindings.ibverbs.ibverbs_h;
import io.jrdma.bindings.rdmacm.rdma_cma_h;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemoryLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every struct/union size, alignment, field offset and field size, and every enum and macro constant the
 * generated bindings carry, compared with what the C compiler computes from the installed rdma-core headers.
 */
class AbiConformanceTest {

    private static final Path WORK = Path.of("target", "abi-probe");

    @Test
    void ibverbsBindingsMatchTheInstalledHeaders() throws Exception {
        AbiProbe probe = new AbiProbe().addPackage(ibverbs_h.class);
        assertCovers(probe, "struct ibv_context_ops", "struct ibv_context", "struct verbs_context",
                "struct ibv_qp_ex", "struct ibv_cq_ex", "struct ibv_wc", "struct ibv_send_wr", "struct ibv_recv_wr",
                "struct ibv_sge", "struct ibv_qp_attr", "struct ibv_qp_init_attr", "struct ibv_qp_init_attr_ex",
                "struct ibv_port_attr", "struct ibv_device_attr", "struct ibv_device_attr_ex", "struct ibv_ah_attr",
                "struct ibv_global_route", "struct ibv_mw_bind_info", "union ibv_gid");
        // ibv_send_wr's unions, anonymous and named, must be probed member by member.
        assertTrue(probe.fields().containsAll(List.of("struct ibv_send_wr.imm_data", "struct ibv_send_wr.invalidate_rkey",
                "struct ibv_send_wr.wr.rdma.remote_addr", "struct ibv_send_wr.wr.atomic.swap",
                "struct ibv_send_wr.wr.ud.remote_qkey", "struct ibv_send_wr.qp_type.xrc.remote_srqn",
                "struct ibv_send_wr.bind_mw.bind_info.length", "struct ibv_send_wr.tso.mss",
                "struct ibv_context_ops.post_send", "struct ibv_qp_ex.wr_rdma_write", "struct ibv_cq_ex.start_poll",
                "struct verbs_context.query_port")), "ibv_send_wr, ops and extension fields are probed");
        assertMatches(probe, "ibverbs", List.of("infiniband/verbs.h"));
    }

    @Test
    void rdmacmBindingsMatchTheInstalledHeaders() throws Exception {
        AbiProbe probe = new AbiProbe().addPackage(rdma_cma_h.class);
        assertCovers(probe, "struct rdma_cm_id", "struct rdma_cm_event", "struct rdma_conn_param",
                "struct rdma_ud_param", "struct rdma_addrinfo", "struct rdma_route", "struct rdma_addr",
                "struct sockaddr_in6");
        assertMatches(probe, "rdmacm", List.of("rdma/rdma_cma.h"));
    }

    /** QueuePair fills one ibv_qp_init_attr_ex through the ibv_qp_init_attr accessors: its prefix must match. */
    @Test
    void qpInitAttrIsThePrefixOfQpInitAttrEx() {
        for (var member : ibv_qp_init_attr.layout().memberLayouts()) {
            if (member.name().isEmpty()) {
                continue;
            }
            var path = MemoryLayout.PathElement.groupElement(member.name().get());
            assertEquals(ibv_qp_init_attr.layout().byteOffset(path), ibv_qp_init_attr_ex.layout().byteOffset(path),
                    member.name().get());
        }
    }

    private static void assertCovers(AbiProbe probe, String... types) {
        List<String> missing = new ArrayList<>();
        for (String t : types) {
            if (!probe.types().contains(t)) {
                missing.add(t);
            }
        }
        assertEquals(List.of(), missing, "types the bindings must generate");
    }

    private static void assertMatches(AbiProbe probe, String name, List<String> includes) throws Exception {
        Map<String, Long> c = probe.run(WORK.resolve(name).toAbsolutePath(), includes);
        List<String> mismatches = new ArrayList<>();
        for (AbiProbe.Probe p : probe.probes()) {
            Long expected = c.get(p.key());
            if (expected == null) {
                mismatches.add(p.key() + ": not computed by the C probe");
                continue;
            }
            // Compare at the Java type's width: C's unsigned 0xffffffff is Java's int -1.
            long cValue = p.javaBits() == 64 ? expected : expected << (64 - p.javaBits()) >> (64 - p.javaBits());
            if (cValue != p.javaValue()) {
                mismatches.add(p.key() + ": C says " + expected + ", Java says " + p.javaValue());
            }
        }
        assertEquals(List.of(), mismatches, () -> mismatches.size() + " of " + probe.probes().size()
                + " ABI numbers differ between the bindings and the installed headers:\n  "
                + String.join("\n  ", mismatches));
        assertTrue(probe.probes().size() > 100, "probed " + probe.probes().size() + " numbers");
    }
}
