package io.jvs.forwarder.control.netlink;

/**
 * The IPVS generic netlink family of {@code include/uapi/linux/ip_vs.h}: commands, attribute types and flags, and
 * the family id, version and limits this endpoint registers it with.
 */
public final class IpvsNetlink
{
    public static final String FAMILY_NAME = "IPVS";
    /** The id nlctrl hands out for "IPVS" here (the kernel assigns one dynamically; clients resolve it by name). */
    public static final int FAMILY_ID = 0x20;
    public static final int VERSION = 1;
    /** The version {@code IPVS_INFO_ATTR_VERSION} reports: 1.2.1, as {@code IP_VS_VERSION_CODE}. */
    public static final int VERSION_CODE = 0x010201;

    public static final int CMD_NEW_SERVICE = 1;
    public static final int CMD_SET_SERVICE = 2;
    public static final int CMD_DEL_SERVICE = 3;
    public static final int CMD_GET_SERVICE = 4;
    public static final int CMD_NEW_DEST = 5;
    public static final int CMD_SET_DEST = 6;
    public static final int CMD_DEL_DEST = 7;
    public static final int CMD_GET_DEST = 8;
    public static final int CMD_NEW_DAEMON = 9;
    public static final int CMD_DEL_DAEMON = 10;
    public static final int CMD_GET_DAEMON = 11;
    public static final int CMD_SET_CONFIG = 12;
    public static final int CMD_GET_CONFIG = 13;
    public static final int CMD_SET_INFO = 14;
    public static final int CMD_GET_INFO = 15;
    public static final int CMD_ZERO = 16;
    public static final int CMD_FLUSH = 17;
    public static final int CMD_MAX = 17;

    public static final int CMD_ATTR_SERVICE = 1;
    public static final int CMD_ATTR_DEST = 2;
    public static final int CMD_ATTR_DAEMON = 3;
    public static final int CMD_ATTR_TIMEOUT_TCP = 4;
    public static final int CMD_ATTR_TIMEOUT_TCP_FIN = 5;
    public static final int CMD_ATTR_TIMEOUT_UDP = 6;
    public static final int CMD_ATTR_MAX = 6;

    public static final int SVC_ATTR_AF = 1;
    public static final int SVC_ATTR_PROTOCOL = 2;
    public static final int SVC_ATTR_ADDR = 3;
    public static final int SVC_ATTR_PORT = 4;
    public static final int SVC_ATTR_FWMARK = 5;
    public static final int SVC_ATTR_SCHED_NAME = 6;
    public static final int SVC_ATTR_FLAGS = 7;
    public static final int SVC_ATTR_TIMEOUT = 8;
    public static final int SVC_ATTR_NETMASK = 9;
    public static final int SVC_ATTR_STATS = 10;
    public static final int SVC_ATTR_PE_NAME = 11;
    public static final int SVC_ATTR_STATS64 = 12;
    public static final int SVC_ATTR_MAX = 12;

    public static final int DEST_ATTR_ADDR = 1;
    public static final int DEST_ATTR_PORT = 2;
    public static final int DEST_ATTR_FWD_METHOD = 3;
    public static final int DEST_ATTR_WEIGHT = 4;
    public static final int DEST_ATTR_U_THRESH = 5;
    public static final int DEST_ATTR_L_THRESH = 6;
    public static final int DEST_ATTR_ACTIVE_CONNS = 7;
    public static final int DEST_ATTR_INACT_CONNS = 8;
    public static final int DEST_ATTR_PERSIST_CONNS = 9;
    public static final int DEST_ATTR_STATS = 10;
    public static final int DEST_ATTR_ADDR_FAMILY = 11;
    public static final int DEST_ATTR_STATS64 = 12;
    public static final int DEST_ATTR_TUN_TYPE = 13;
    public static final int DEST_ATTR_TUN_PORT = 14;
    public static final int DEST_ATTR_TUN_FLAGS = 15;
    public static final int DEST_ATTR_MAX = 15;

    public static final int DAEMON_ATTR_STATE = 1;
    public static final int DAEMON_ATTR_MCAST_IFN = 2;
    public static final int DAEMON_ATTR_SYNC_ID = 3;
    public static final int DAEMON_ATTR_SYNC_MAXLEN = 4;
    public static final int DAEMON_ATTR_MCAST_GROUP = 5;
    public static final int DAEMON_ATTR_MCAST_GROUP6 = 6;
    public static final int DAEMON_ATTR_MCAST_PORT = 7;
    public static final int DAEMON_ATTR_MCAST_TTL = 8;
    public static final int DAEMON_ATTR_MAX = 8;

    public static final int STATS_ATTR_CONNS = 1;
    public static final int STATS_ATTR_INPKTS = 2;
    public static final int STATS_ATTR_OUTPKTS = 3;
    public static final int STATS_ATTR_INBYTES = 4;
    public static final int STATS_ATTR_OUTBYTES = 5;
    public static final int STATS_ATTR_CPS = 6;
    public static final int STATS_ATTR_INPPS = 7;
    public static final int STATS_ATTR_OUTPPS = 8;
    public static final int STATS_ATTR_INBPS = 9;
    public static final int STATS_ATTR_OUTBPS = 10;

    public static final int INFO_ATTR_VERSION = 1;
    public static final int INFO_ATTR_CONN_TAB_SIZE = 2;

    /** {@code IP_VS_SCHEDNAME_MAXLEN}, {@code IP_VS_PENAME_MAXLEN}, {@code IP_VS_IFNAME_MAXLEN}: with the NUL. */
    public static final int NAME_MAXLEN = 16;

    public static final int SVC_F_PERSISTENT = 0x0001;
    public static final int SVC_F_HASHED = 0x0002;
    public static final int SVC_F_ONEPACKET = 0x0004;
    public static final int SVC_F_SCHED1 = 0x0008;
    public static final int SVC_F_SCHED2 = 0x0010;
    public static final int SVC_F_SCHED3 = 0x0020;

    /** {@code IP_VS_CONN_F_FWD_MASK} and the forwarding methods under it. */
    public static final int CONN_F_FWD_MASK = 0x0007;
    public static final int CONN_F_MASQ = 0x0000;
    public static final int CONN_F_LOCALNODE = 0x0001;
    public static final int CONN_F_TUNNEL = 0x0002;
    public static final int CONN_F_DROUTE = 0x0003;

    public static final int STATE_NONE = 0;
    public static final int STATE_MASTER = 1;
    public static final int STATE_BACKUP = 2;

    private IpvsNetlink()
    {
    }
}
