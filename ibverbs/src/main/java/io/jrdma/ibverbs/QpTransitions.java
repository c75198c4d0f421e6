package io.jrdma.ibverbs;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.jrdma.ibverbs.QpAttribute.*;

/**
 * Which attributes each queue pair state transition requires and allows, per transport (RC, UC, UD): the table of
 * the InfiniBand specification (section 11.2.4.2) as the Linux kernel's {@code ib_modify_qp_is_ok} enforces it
 * ({@code qp_state_table} in {@code drivers/infiniband/core/verbs.c}). {@link QpAttribute#STATE} is implied by every
 * transition; a modify without it changes attributes in the current state (RTS → RTS, ...).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-transitions}
 */
public final class QpTransitions {
    /**
     * What one transition of one transport takes besides the state.
     *
     * @param required the attributes it must be given
     * @param optional the attributes it may be given
     */
    public record Rule(Set<QpAttribute> required, Set<QpAttribute> optional) {
        /**
         * Copies the sets, unmodifiable.
         *
         * @throws NullPointerException if either is null
         */
        public Rule {
            required = Collections.unmodifiableSet(copy(required));
            optional = Collections.unmodifiableSet(copy(optional));
        }

        @Override
        public String toString() {
            return "requires " + required + ", allows " + optional;
        }
    }

    private static final Set<QpType> TYPES = EnumSet.of(QpType.RC, QpType.UC, QpType.UD);
    /** from → to → transport → rule; a pair that is absent is no transition. */
    private static final Map<QpState, Map<QpState, Map<QpType, Rule>>> TABLE = new EnumMap<>(QpState.class);

    static {
        // Every state may be reset, and every one but RESET may fail to ERR, with the state alone.
        for (QpState from : EnumSet.range(QpState.RESET, QpState.ERR)) {
            same(from, QpState.RESET, rule(Set.of(), Set.of()));
            if (from != QpState.RESET) {
                same(from, QpState.ERR, rule(Set.of(), Set.of()));
            }
        }
        Rule connectedInit = rule(Set.of(PKEY_INDEX, PORT, ACCESS_FLAGS), Set.of());
        add(QpState.RESET, QpState.INIT, rule(Set.of(PKEY_INDEX, PORT, QKEY), Set.of()), connectedInit, connectedInit);
        Rule connectedInitInit = rule(Set.of(), Set.of(PKEY_INDEX, PORT, ACCESS_FLAGS));
        add(QpState.INIT, QpState.INIT, rule(Set.of(), Set.of(PKEY_INDEX, PORT, QKEY)), connectedInitInit,
                connectedInitInit);
        Set<QpAttribute> rtrOptional = Set.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX);
        add(QpState.INIT, QpState.RTR, rule(Set.of(), Set.of(PKEY_INDEX, QKEY)),
                rule(Set.of(AV, PATH_MTU, DEST_QPN, RQ_PSN), rtrOptional),
                rule(Set.of(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER), rtrOptional));
        Rule udToRts = rule(Set.of(), Set.of(CUR_STATE, QKEY));
        Rule ucToRts = rule(Set.of(), Set.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE));
        Rule rcToRts = rule(Set.of(), Set.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE, MIN_RNR_TIMER));
        add(QpState.RTR, QpState.RTS, rule(Set.of(SQ_PSN), udToRts.optional()),
                rule(Set.of(SQ_PSN), ucToRts.optional()),
                rule(Set.of(TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC), rcToRts.optional()));
        add(QpState.RTS, QpState.RTS, udToRts, ucToRts, rcToRts);
        add(QpState.SQD, QpState.RTS, udToRts, ucToRts, rcToRts);
        same(QpState.RTS, QpState.SQD, rule(Set.of(), Set.of(EN_SQD_ASYNC_NOTIFY)));
        add(QpState.SQD, QpState.SQD, rule(Set.of(), Set.of(PKEY_INDEX, QKEY)),
                rule(Set.of(), Set.of(AV, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, PATH_MIG_STATE)),
                rule(Set.of(), Set.of(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC,
                        ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE)));
        // RC never enters SQE (its send errors take it to ERR); the kernel's table still lets it leave with the state
        // alone.
        add(QpState.SQE, QpState.RTS, udToRts, rule(Set.of(), Set.of(CUR_STATE, ACCESS_FLAGS)),
                rule(Set.of(), Set.of()));
    }

    private QpTransitions() {
    }

    /**
     * The rule of a transition.
     *
     * @param type the transport
     * @param from the state the queue pair is in
     * @param to   the state to move to ({@code from} for a modify that changes attributes only)
     * @return the rule, or empty if {@code from → to} is no transition, or {@code type} is none of RC, UC and UD
     * @throws NullPointerException if an argument is null
     */
    public static Optional<Rule> rule(QpType type, QpState from, QpState to) {
        Map<QpState, Map<QpType, Rule>> row = TABLE.getOrDefault(from, Map.of());
        Map<QpType, Rule> rules = row.getOrDefault(to, Map.of());
        return Optional.ofNullable(rules.get(type));
    }

    /**
     * Refuses a modify that lacks an attribute the transition requires, or sets one it does not allow (what the
     * kernel would refuse with {@code EINVAL}). A transition that is not in the table, or a transport without one,
     * passes: the device decides.
     *
     * @param type  the transport
     * @param from  the state the queue pair is in
     * @param to    the state to move to
     * @param given the attributes the modify sets ({@link QpAttribute#STATE} or not)
     * @throws IllegalArgumentException naming the missing and the forbidden attributes
     * @throws NullPointerException     if an argument is null
     */
    public static void check(QpType type, QpState from, QpState to, Set<QpAttribute> given) {
        Optional<Rule> found = rule(type, from, to);
        if (found.isEmpty()) {
            return;
        }
        Rule rule = found.get();
        EnumSet<QpAttribute> missing = copy(rule.required());
        missing.removeAll(given);
        EnumSet<QpAttribute> forbidden = copy(given);
        forbidden.remove(STATE);
        forbidden.removeAll(rule.required());
        forbidden.removeAll(rule.optional());
        if (missing.isEmpty() && forbidden.isEmpty()) {
            return;
        }
        StringBuilder why = new StringBuilder(name(type, from, to));
        if (!missing.isEmpty()) {
            why.append(" is missing ").append(missing);
        }
        if (!forbidden.isEmpty()) {
            why.append(missing.isEmpty() ? " does not take " : ", and does not take ").append(forbidden);
        }
        throw new IllegalArgumentException(why.append(": it ").append(rule).toString());
    }

    /** What the table says of {@code from → to}, for the message of a modify the device refused. */
    static String expectation(QpType type, QpState from, QpState to) {
        return rule(type, from, to).map(r -> name(type, from, to) + " " + r)
                .orElseGet(() -> TYPES.contains(type) ? from + " → " + to + " is no transition; from " + from
                        + " a queue pair moves to " + TABLE.getOrDefault(from, Map.of()).keySet()
                        : "no transition table for " + type);
    }

    private static String name(QpType type, QpState from, QpState to) {
        return type + " " + from + " → " + to;
    }

    private static Rule rule(Set<QpAttribute> required, Set<QpAttribute> optional) {
        return new Rule(required, optional);
    }

    private static void same(QpState from, QpState to, Rule rule) {
        add(from, to, rule, rule, rule);
    }

    private static void add(QpState from, QpState to, Rule ud, Rule uc, Rule rc) {
        Map<QpType, Rule> rules = new EnumMap<>(QpType.class);
        rules.put(QpType.UD, ud);
        rules.put(QpType.UC, uc);
        rules.put(QpType.RC, rc);
        TABLE.computeIfAbsent(from, s -> new EnumMap<>(QpState.class)).put(to, rules);
    }

    private static EnumSet<QpAttribute> copy(Set<QpAttribute> set) {
        return set.isEmpty() ? EnumSet.noneOf(QpAttribute.class) : EnumSet.copyOf(set);
    }
}
