package io.jvs.nativebindings.bpf;

/**
 * {@code union bpf_attr}, the argument of {@code bpf(2)}: one nested class per command, each holding the
 * command's number and the byte offsets of the fields jvs sets (Linux 6.1 uapi, unchanged on 6.18).
 * Every pointer field is a {@code u64} holding an address. Fields not set must be zero: the kernel
 * rejects a command whose unused tail bytes are not.
 */
public final class BpfAttr
{
    /** The size passed to bpf(2) (the 6.1 union); newer kernels accept it, older ones a zero tail. */
    public static final int SIZE_BYTES = 144;

    /** {@code BPF_OBJ_NAME_LEN}: object names are at most 15 characters and a NUL. */
    public static final int OBJECT_NAME_BYTES = 16;

    private BpfAttr()
    {
    }

    /** {@code BPF_MAP_CREATE}: returns the map's fd. */
    public static final class MapCreate
    {
        public static final int COMMAND = 0;
        public static final int MAP_TYPE = 0;
        public static final int KEY_SIZE = 4;
        public static final int VALUE_SIZE = 8;
        public static final int MAX_ENTRIES = 12;
        public static final int MAP_FLAGS = 16;
        public static final int INNER_MAP_FD = 20;
        public static final int NUMA_NODE = 24;
        public static final int MAP_NAME = 28;

        private MapCreate()
        {
        }
    }

    /** {@code BPF_MAP_LOOKUP_ELEM}, {@code _UPDATE_ELEM} and {@code _DELETE_ELEM} share one layout. */
    public static final class MapElement
    {
        public static final int LOOKUP_COMMAND = 1;
        public static final int UPDATE_COMMAND = 2;
        public static final int DELETE_COMMAND = 3;
        public static final int MAP_FD = 0;
        public static final int KEY = 8;
        public static final int VALUE = 16;
        public static final int FLAGS = 24;

        /** Update flags: create or replace, create only, replace only. */
        public static final long UPDATE_ANY = 0;
        public static final long UPDATE_NO_EXIST = 1;
        public static final long UPDATE_EXIST = 2;

        private MapElement()
        {
        }
    }

    /** {@code BPF_PROG_LOAD}: returns the program's fd. */
    public static final class ProgramLoad
    {
        public static final int COMMAND = 5;
        public static final int PROG_TYPE = 0;
        public static final int INSN_CNT = 4;
        public static final int INSNS = 8;
        public static final int LICENSE = 16;
        public static final int LOG_LEVEL = 24;
        public static final int LOG_SIZE = 28;
        public static final int LOG_BUF = 32;
        public static final int KERN_VERSION = 40;
        public static final int PROG_FLAGS = 44;
        public static final int PROG_NAME = 48;
        public static final int PROG_IFINDEX = 64;
        public static final int EXPECTED_ATTACH_TYPE = 68;

        private ProgramLoad()
        {
        }
    }

    /** {@code BPF_PROG_TEST_RUN}: runs a program once on a given packet, in the kernel, without a device. */
    public static final class TestRun
    {
        public static final int COMMAND = 10;
        public static final int PROG_FD = 0;
        public static final int RETVAL = 4;
        public static final int DATA_SIZE_IN = 8;
        public static final int DATA_SIZE_OUT = 12;
        public static final int DATA_IN = 16;
        public static final int DATA_OUT = 24;
        public static final int REPEAT = 32;
        public static final int DURATION = 36;
        public static final int CTX_SIZE_IN = 40;
        public static final int CTX_SIZE_OUT = 44;
        public static final int CTX_IN = 48;
        public static final int CTX_OUT = 56;
        public static final int FLAGS = 64;

        private TestRun()
        {
        }
    }

    /** {@code BPF_OBJ_GET_INFO_BY_FD}: copies up to {@code info_len} bytes of the object's info struct. */
    public static final class ObjectInfo
    {
        public static final int COMMAND = 15;
        public static final int BPF_FD = 0;
        public static final int INFO_LEN = 4;
        public static final int INFO = 8;

        private ObjectInfo()
        {
        }
    }

    /** {@code struct bpf_prog_info}, the part jvs reads. */
    public static final class ProgramInfo
    {
        public static final int TYPE = 0;
        public static final int ID = 4;
        public static final int TAG = 8;
        public static final int JITED_PROG_LEN = 16;
        public static final int XLATED_PROG_LEN = 20;
        public static final int NAME = 64;
        /** Everything up to and including {@code name}. */
        public static final int SIZE_BYTES = 80;

        private ProgramInfo()
        {
        }
    }

    /** {@code BPF_LINK_CREATE}: returns the link's fd; closing the last fd detaches the program. */
    public static final class LinkCreate
    {
        public static final int COMMAND = 28;
        public static final int PROG_FD = 0;
        public static final int TARGET_IFINDEX = 4;
        public static final int ATTACH_TYPE = 8;
        public static final int FLAGS = 12;
        /**
         * tcx links only: the program or link to insert before or after ({@code relative_fd} or
         * {@code relative_id}, chosen by flags), and the revision the attach expects; zero for neither.
         */
        public static final int TCX_RELATIVE_FD = 16;
        public static final int TCX_EXPECTED_REVISION = 20;

        private LinkCreate()
        {
        }
    }

    /** {@code BPF_PROG_QUERY}: the programs attached to a hook; {@code prog_cnt} is in/out (capacity, count). */
    public static final class ProgramQuery
    {
        public static final int COMMAND = 16;
        public static final int TARGET_IFINDEX = 0;
        public static final int ATTACH_TYPE = 4;
        public static final int QUERY_FLAGS = 8;
        public static final int ATTACH_FLAGS = 12;
        public static final int PROG_IDS = 16;
        public static final int PROG_COUNT = 24;
        public static final int LINK_IDS = 40;
        public static final int REVISION = 56;

        private ProgramQuery()
        {
        }
    }

    /**
     * {@code BPF_RAW_TRACEPOINT_OPEN}: attaches a {@code BPF_PROG_TYPE_RAW_TRACEPOINT} program to the tracepoint
     * named at {@code name} (a C string); returns an fd whose closing detaches it.
     */
    public static final class RawTracepointOpen
    {
        public static final int COMMAND = 17;
        public static final int NAME = 0;
        public static final int PROG_FD = 8;

        private RawTracepointOpen()
        {
        }
    }
}
