package io.jrdma.ibverbs.internal;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.RdmaUnsupportedException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** The one place failed verbs become exceptions: "the device cannot" has a type of its own, nothing else has. */
class ErrnoTest {
    @Test
    void eopnotsuppIsTypedAndKeepsItsErrnoAndMessage() {
        RdmaException e = Errno.exception("ibv_modify_cq", Errno.EOPNOTSUPP, "rxe0 cannot moderate");
        RdmaUnsupportedException unsupported = assertInstanceOf(RdmaUnsupportedException.class, e);
        assertEquals(95, unsupported.errno());
        assertEquals("EOPNOTSUPP", unsupported.errnoName());
        assertEquals("ibv_modify_cq", unsupported.verb());
        assertEquals("ibv_modify_cq failed: EOPNOTSUPP (errno 95): Operation not supported; rxe0 cannot moderate",
                unsupported.getMessage());
        assertInstanceOf(RdmaUnsupportedException.class, Errno.exception("ibv_query_ece", Errno.EOPNOTSUPP));
    }

    @Test
    void otherErrorsStayPlainRdmaExceptions() {
        for (int errno : new int[] {12, Errno.EINVAL, Errno.ENODEV, 38}) {
            RdmaException e = Errno.exception("ibv_reg_mr", errno);
            assertFalse(e instanceof RdmaUnsupportedException, e.getMessage());
            assertEquals(errno, e.errno());
        }
    }
}
