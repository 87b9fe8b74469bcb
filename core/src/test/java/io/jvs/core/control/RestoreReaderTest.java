package io.jvs.core.control;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * config_stream_read's splitting of -R's input.
 */
class RestoreReaderTest
{
    private static List<List<String>> lines(final String input) throws IOException
    {
        final RestoreReader reader = new RestoreReader(new StringReader(input));
        final List<List<String>> lines = new ArrayList<>();
        for (List<String> line = reader.nextLine(); line != null; line = reader.nextLine())
        {
            lines.add(line);
        }
        return lines;
    }

    @Test
    void shouldSplitOnBlanksAndDropIpvsadm() throws IOException
    {
        assertThat(lines("ipvsadm -A -t 10.0.0.1:80\n-a\t-t  10.0.0.1:80 ipvsadm -r 1.1.1.1\r\n")).containsExactly(
            List.of("-A", "-t", "10.0.0.1:80"), List.of("-a", "-t", "10.0.0.1:80", "-r", "1.1.1.1"));
    }

    @Test
    void shouldGiveEmptyLinesForBlankOnesAndKeepHashes() throws IOException
    {
        assertThat(lines("\n   \n# a comment\n-C\n")).containsExactly(List.of(), List.of(),
            List.of("#", "a", "comment"), List.of("-C"));
    }

    @Test
    void shouldReadALastLineWithoutNewline() throws IOException
    {
        assertThat(lines("-C\n-L -n")).containsExactly(List.of("-C"), List.of("-L", "-n"));
        assertThat(lines("-C\n-L -n ")).containsExactly(List.of("-C"), List.of("-L", "-n"));
        assertThat(lines("-C\nipvsadm")).containsExactly(List.of("-C"));
    }

    @Test
    void shouldDropALastLineEndingInARunOfBlanks() throws IOException
    {
        // fscanf finds no word, the loop skipping blanks meets the end: the line's words are dropped.
        assertThat(lines("-C\n-L -n  ")).containsExactly(List.of("-C"));
    }

    @Test
    void shouldCutWordsAt4096Characters() throws IOException
    {
        final String word = "x".repeat(5000);
        assertThat(lines(word + "\n")).containsExactly(List.of("x".repeat(4096), "x".repeat(904)));
    }

    @Test
    void shouldReadANulByteAsPartOfAWordAsFscanfDoes() throws IOException
    {
        // %s stops only at white space: a NUL byte is an ordinary character of a word, not the end of the input.
        assertThat(lines("-C x\u0000y z\n\u0000\n-L \u0000\n-L  \u0000\n")).containsExactly(
            List.of("-C", "x\u0000y", "z"), List.of("\u0000"), List.of("-L", "\u0000"), List.of("-L", "\u0000"));
    }
}
