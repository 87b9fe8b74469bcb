package io.jvs.nativebindings.bpf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bpf_attr offsets and constants against the values verified on Linux 6.18 in the kernel-bypass notes
 * (and, for the test-run and object-info layouts the notes do not list, the 6.1 uapi header).
 */
class BpfAttrTest
{
    @Test
    void shouldLayOutMapCreateAsTheKernel()
    {
        assertThat(new int[] {BpfAttr.MapCreate.COMMAND, BpfAttr.MapCreate.MAP_TYPE, BpfAttr.MapCreate.KEY_SIZE,
            BpfAttr.MapCreate.VALUE_SIZE, BpfAttr.MapCreate.MAX_ENTRIES, BpfAttr.MapCreate.MAP_FLAGS,
            BpfAttr.MapCreate.INNER_MAP_FD, BpfAttr.MapCreate.NUMA_NODE, BpfAttr.MapCreate.MAP_NAME})
            .containsExactly(0, 0, 4, 8, 12, 16, 20, 24, 28);
        assertThat(BpfMap.TYPE_HASH).isEqualTo(1);
        assertThat(BpfMap.TYPE_XSKMAP).isEqualTo(17);
    }

    @Test
    void shouldLayOutMapElementCommandsAsTheKernel()
    {
        assertThat(new int[] {BpfAttr.MapElement.LOOKUP_COMMAND, BpfAttr.MapElement.UPDATE_COMMAND,
            BpfAttr.MapElement.DELETE_COMMAND, BpfAttr.MapElement.MAP_FD, BpfAttr.MapElement.KEY,
            BpfAttr.MapElement.VALUE, BpfAttr.MapElement.FLAGS})
            .containsExactly(1, 2, 3, 0, 8, 16, 24);
    }

    @Test
    void shouldLayOutProgramLoadAsTheKernel()
    {
        assertThat(new int[] {BpfAttr.ProgramLoad.COMMAND, BpfAttr.ProgramLoad.PROG_TYPE, BpfAttr.ProgramLoad.INSN_CNT,
            BpfAttr.ProgramLoad.INSNS, BpfAttr.ProgramLoad.LICENSE, BpfAttr.ProgramLoad.LOG_LEVEL,
            BpfAttr.ProgramLoad.LOG_SIZE, BpfAttr.ProgramLoad.LOG_BUF, BpfAttr.ProgramLoad.KERN_VERSION,
            BpfAttr.ProgramLoad.PROG_FLAGS, BpfAttr.ProgramLoad.PROG_NAME, BpfAttr.ProgramLoad.PROG_IFINDEX,
            BpfAttr.ProgramLoad.EXPECTED_ATTACH_TYPE})
            .containsExactly(5, 0, 4, 8, 16, 24, 28, 32, 40, 44, 48, 64, 68);
        assertThat(BpfProgram.TYPE_XDP).isEqualTo(6);
        assertThat(BpfProgram.ATTACH_TYPE_XDP).isEqualTo(37);
    }

    @Test
    void shouldLayOutLinkCreateAsTheKernel()
    {
        assertThat(new int[] {BpfAttr.LinkCreate.COMMAND, BpfAttr.LinkCreate.PROG_FD,
            BpfAttr.LinkCreate.TARGET_IFINDEX, BpfAttr.LinkCreate.ATTACH_TYPE, BpfAttr.LinkCreate.FLAGS})
            .containsExactly(28, 0, 4, 8, 12);
        assertThat(new int[] {BpfAttr.LinkCreate.TCX_RELATIVE_FD, BpfAttr.LinkCreate.TCX_EXPECTED_REVISION})
            .containsExactly(16, 20);
        assertThat(XdpMode.SKB.flag()).isEqualTo(2);
        assertThat(XdpMode.DRV.flag()).isEqualTo(4);
    }

    @Test
    void shouldUseTheTcxNumbersOfTheUapiHeader()
    {
        assertThat(BpfProgram.TYPE_SCHED_CLS).isEqualTo(3);
        assertThat(new int[] {TcxDirection.INGRESS.attachType(), TcxDirection.EGRESS.attachType()})
            .containsExactly(46, 47);
        assertThat(new int[] {TcPrograms.NEXT, TcPrograms.PASS, TcPrograms.DROP}).containsExactly(-1, 0, 2);
        assertThat(new int[] {BpfAttr.ProgramQuery.COMMAND, BpfAttr.ProgramQuery.TARGET_IFINDEX,
            BpfAttr.ProgramQuery.ATTACH_TYPE, BpfAttr.ProgramQuery.QUERY_FLAGS, BpfAttr.ProgramQuery.ATTACH_FLAGS,
            BpfAttr.ProgramQuery.PROG_IDS, BpfAttr.ProgramQuery.PROG_COUNT, BpfAttr.ProgramQuery.LINK_IDS,
            BpfAttr.ProgramQuery.REVISION})
            .containsExactly(16, 0, 4, 8, 12, 16, 24, 40, 56);
    }

    @Test
    void shouldLayOutTestRunAndObjectInfoAsTheUapiHeader()
    {
        assertThat(new int[] {BpfAttr.TestRun.COMMAND, BpfAttr.TestRun.PROG_FD, BpfAttr.TestRun.RETVAL,
            BpfAttr.TestRun.DATA_SIZE_IN, BpfAttr.TestRun.DATA_SIZE_OUT, BpfAttr.TestRun.DATA_IN,
            BpfAttr.TestRun.DATA_OUT, BpfAttr.TestRun.REPEAT, BpfAttr.TestRun.DURATION, BpfAttr.TestRun.CTX_SIZE_IN,
            BpfAttr.TestRun.CTX_SIZE_OUT, BpfAttr.TestRun.CTX_IN, BpfAttr.TestRun.CTX_OUT, BpfAttr.TestRun.FLAGS})
            .containsExactly(10, 0, 4, 8, 12, 16, 24, 32, 36, 40, 44, 48, 56, 64);
        assertThat(new int[] {BpfAttr.ObjectInfo.COMMAND, BpfAttr.ObjectInfo.BPF_FD, BpfAttr.ObjectInfo.INFO_LEN,
            BpfAttr.ObjectInfo.INFO, BpfAttr.ProgramInfo.ID, BpfAttr.ProgramInfo.XLATED_PROG_LEN,
            BpfAttr.ProgramInfo.NAME})
            .containsExactly(15, 0, 4, 8, 4, 20, 64);
    }

    @Test
    void shouldUseTheNotesSizesAndContextOffsets()
    {
        assertThat(BpfAttr.SIZE_BYTES).isEqualTo(144);
        assertThat(BpfInstruction.SIZE_BYTES).isEqualTo(8);
        assertThat(new int[] {XdpMetadata.DATA, XdpMetadata.DATA_END, XdpMetadata.DATA_META,
            XdpMetadata.INGRESS_IFINDEX, XdpMetadata.RX_QUEUE_INDEX, XdpMetadata.EGRESS_IFINDEX})
            .containsExactly(0, 4, 8, 12, 16, 20);
        assertThat(new int[] {XdpAction.ABORTED, XdpAction.DROP, XdpAction.PASS, XdpAction.TX, XdpAction.REDIRECT})
            .containsExactly(0, 1, 2, 3, 4);
        assertThat(new int[] {BpfHelper.MAP_LOOKUP_ELEM, BpfHelper.REDIRECT_MAP}).containsExactly(1, 51);
    }
}
