package io.jvs.forwarder.control.netlink;

/**
 * The generic netlink controller's ({@code nlctrl}, {@code include/uapi/linux/genetlink.h}) commands and
 * attributes, and the operation flags a family lists.
 */
public final class GenericNetlink
{
    /** {@code GENL_ID_CTRL}: nlctrl's fixed family id. */
    public static final int ID_CTRL = Netlink.NLMSG_MIN_TYPE;
    public static final String CTRL_NAME = "nlctrl";
    /** nlctrl's own family version. */
    public static final int CTRL_VERSION = 2;
    /** {@code GENL_NAMSIZ}, with the NUL. */
    public static final int NAMSIZ = 16;

    public static final int CTRL_CMD_NEWFAMILY = 1;
    public static final int CTRL_CMD_GETFAMILY = 3;
    public static final int CTRL_CMD_GETPOLICY = 10;

    public static final int CTRL_ATTR_FAMILY_ID = 1;
    public static final int CTRL_ATTR_FAMILY_NAME = 2;
    public static final int CTRL_ATTR_VERSION = 3;
    public static final int CTRL_ATTR_HDRSIZE = 4;
    public static final int CTRL_ATTR_MAXATTR = 5;
    public static final int CTRL_ATTR_OPS = 6;
    public static final int CTRL_ATTR_MCAST_GROUPS = 7;
    public static final int CTRL_ATTR_MAX = 10;

    public static final int CTRL_ATTR_OP_ID = 1;
    public static final int CTRL_ATTR_OP_FLAGS = 2;
    public static final int CTRL_ATTR_MCAST_GRP_NAME = 1;
    public static final int CTRL_ATTR_MCAST_GRP_ID = 2;

    public static final int GENL_ADMIN_PERM = 0x01;
    public static final int GENL_CMD_CAP_DO = 0x02;
    public static final int GENL_CMD_CAP_DUMP = 0x04;
    public static final int GENL_CMD_CAP_HASPOL = 0x08;

    private GenericNetlink()
    {
    }
}
