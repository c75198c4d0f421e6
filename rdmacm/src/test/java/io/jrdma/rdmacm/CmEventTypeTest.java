package io.jrdma.rdmacm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CmEventTypeTest {

    @Test
    void everyTypeIsNamedByLibrdmacmAfterItself() {
        for (CmEventType t : CmEventType.values()) {
            assertEquals("RDMA_CM_EVENT_" + t.name(), t.description());
            assertEquals(t, CmEventType.of(t.value()));
        }
    }

    @Test
    void unknownValuesAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CmEventType.of(999));
        assertEquals("unknown rdma_cm_event_type 999", e.getMessage());
    }
}
