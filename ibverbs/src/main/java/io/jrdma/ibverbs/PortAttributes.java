package io.jrdma.ibverbs;

/**
 * The state and properties of a port ({@code struct ibv_port_attr}, the full structure, not the legacy one),
 * from {@link Context#queryPort(int)}.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=port-attributes}
 *
 * @param state          logical port state
 * @param maxMtu         largest MTU the port supports
 * @param activeMtu      MTU in use
 * @param gidTableLength entries in the GID table
 * @param portCapFlags   {@code IBV_PORT_*} capability bits
 * @param maxMsgSize     largest message, bytes
 * @param pkeyTableLength entries in the P_Key table
 * @param lid            base LID (0 on Ethernet)
 * @param smLid          subnet manager LID
 * @param lmc            LID mask control
 * @param activeWidth    active link width code
 * @param activeSpeed    active link speed code
 * @param physState      physical port state code
 * @param linkLayer      link layer
 * @param flags          {@code IBV_QPF_*} flags
 * @param portCapFlags2  {@code IBV_PORT_*2} capability bits
 */
public record PortAttributes(PortState state, Mtu maxMtu, Mtu activeMtu, int gidTableLength, int portCapFlags,
                             long maxMsgSize, int pkeyTableLength, int lid, int smLid, int lmc, int activeWidth,
                             int activeSpeed, int physState, LinkLayer linkLayer, int flags, int portCapFlags2) {
}
