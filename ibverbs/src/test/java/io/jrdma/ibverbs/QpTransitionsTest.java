package io.jrdma.ibverbs;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static io.jrdma.ibverbs.QpAttribute.*;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The transition table against the kernel's {@code qp_state_table}, and the refusals it words. */
class QpTransitionsTest {
    private static final Set<QpType> TYPES = EnumSet.of(QpType.RC, QpType.UC, QpType.UD);

    @Test
    void connectingTransitionsRequireWhatTheKernelRequires() {
        assertEquals(Set.of(PKEY_INDEX, PORT, ACCESS_FLAGS), required(QpType.RC, QpState.RESET, QpState.INIT));
        assertEquals(Set.of(PKEY_INDEX, PORT, QKEY), required(QpType.UD, QpState.RESET, QpState.INIT));
        assertEquals(Set.of(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
                required(QpType.RC, QpState.INIT, QpState.RTR));
        assertEquals(Set.of(AV, PATH_MTU, DEST_QPN, RQ_PSN), required(QpType.UC, QpState.INIT, QpState.RTR));
        assertEquals(Set.of(), required(QpType.UD, QpState.INIT, QpState.RTR));
        assertEquals(Set.of(TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC),
                required(QpType.RC, QpState.RTR, QpState.RTS));
        assertEquals(Set.of(SQ_PSN), required(QpType.UC, QpState.RTR, QpState.RTS));
        assertEquals(Set.of(SQ_PSN), required(QpType.UD, QpState.RTR, QpState.RTS));
    }

    @Test
    void optionalAttributesFollowTheTransport() {
        assertEquals(Set.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE, MIN_RNR_TIMER),
                optional(QpType.RC, QpState.RTS, QpState.RTS));
        assertEquals(Set.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE),
                optional(QpType.UC, QpState.SQD, QpState.RTS));
        assertEquals(Set.of(CUR_STATE, QKEY), optional(QpType.UD, QpState.SQE, QpState.RTS));
        assertEquals(Set.of(CUR_STATE, ACCESS_FLAGS), optional(QpType.UC, QpState.SQE, QpState.RTS));
        assertEquals(Set.of(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC, ALT_PATH,
                        ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE),
                optional(QpType.RC, QpState.SQD, QpState.SQD));
        assertEquals(Set.of(PKEY_INDEX, QKEY), optional(QpType.UD, QpState.SQD, QpState.SQD));
        for (QpType t : TYPES) {
            assertEquals(Set.of(EN_SQD_ASYNC_NOTIFY), optional(t, QpState.RTS, QpState.SQD));
            assertEquals(Set.of(), required(t, QpState.RTS, QpState.SQD));
        }
    }

    @Test
    void everyStateButResetMayGoToResetOrErrorWithTheStateAlone() {
        for (QpType t : TYPES) {
            for (QpState from : EnumSet.range(QpState.RESET, QpState.ERR)) {
                assertEquals(Set.of(), required(t, from, QpState.RESET), t + " " + from);
                assertEquals(Set.of(), optional(t, from, QpState.RESET), t + " " + from);
                assertEquals(from != QpState.RESET, QpTransitions.rule(t, from, QpState.ERR).isPresent(),
                        t + " " + from + " → ERR");
            }
        }
    }

    @Test
    void transitionsOutsideTheTableHaveNoRule() {
        assertFalse(QpTransitions.rule(QpType.RC, QpState.RESET, QpState.RTS).isPresent());
        assertFalse(QpTransitions.rule(QpType.RC, QpState.INIT, QpState.RTS).isPresent());
        assertFalse(QpTransitions.rule(QpType.RC, QpState.RTR, QpState.SQD).isPresent());
        assertFalse(QpTransitions.rule(QpType.RAW_PACKET, QpState.RESET, QpState.INIT).isPresent());
        assertDoesNotThrow(() -> QpTransitions.check(QpType.RC, QpState.INIT, QpState.RTS, Set.of(STATE)),
                "the device decides what the table does not know");
        assertTrue(QpTransitions.expectation(QpType.RC, QpState.INIT, QpState.RTS)
                .contains("INIT → RTS is no transition"));
    }

    @Test
    void aMissingRequiredAttributeIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QpTransitions.check(
                QpType.RC, QpState.INIT, QpState.RTR, Set.of(STATE, AV, PATH_MTU, DEST_QPN, RQ_PSN)));
        assertTrue(e.getMessage().startsWith("RC INIT → RTR is missing [MIN_RNR_TIMER, MAX_DEST_RD_ATOMIC]"),
                e.getMessage());
        assertTrue(e.getMessage().contains("requires ["), e.getMessage());
    }

    @Test
    void anAttributeTheTransitionDoesNotTakeIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QpTransitions.check(
                QpType.UD, QpState.RESET, QpState.INIT, Set.of(STATE, PKEY_INDEX, PORT, QKEY, ACCESS_FLAGS)));
        assertTrue(e.getMessage().startsWith("UD RESET → INIT does not take [ACCESS_FLAGS]"), e.getMessage());
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class, () -> QpTransitions.check(
                QpType.RC, QpState.RTR, QpState.RTS, Set.of(STATE, SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY, QKEY)));
        assertTrue(both.getMessage().startsWith(
                "RC RTR → RTS is missing [MAX_QP_RD_ATOMIC], and does not take [QKEY]"), both.getMessage());
    }

    @Test
    void theRequiredSetPassesAndEachOfItIsNeeded() {
        for (QpType t : TYPES) {
            for (QpState from : EnumSet.range(QpState.RESET, QpState.ERR)) {
                for (QpState to : EnumSet.range(QpState.RESET, QpState.ERR)) {
                    QpTransitions.rule(t, from, to).ifPresent(rule -> {
                        EnumSet<QpAttribute> all = EnumSet.of(STATE);
                        all.addAll(rule.required());
                        all.addAll(rule.optional());
                        assertDoesNotThrow(() -> QpTransitions.check(t, from, to, all));
                        for (QpAttribute needed : rule.required()) {
                            EnumSet<QpAttribute> lacking = EnumSet.copyOf(all);
                            lacking.remove(needed);
                            assertThrows(IllegalArgumentException.class,
                                    () -> QpTransitions.check(t, from, to, lacking), t + " " + from + "→" + to);
                        }
                    });
                }
            }
        }
    }

    private static Set<QpAttribute> required(QpType t, QpState from, QpState to) {
        return QpTransitions.rule(t, from, to).orElseThrow().required();
    }

    private static Set<QpAttribute> optional(QpType t, QpState from, QpState to) {
        return QpTransitions.rule(t, from, to).orElseThrow().optional();
    }
}
