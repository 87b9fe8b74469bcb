package io.jvs.forwarder.report;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;

/**
 * A rendered report read back with the JDK's XML parser, so tests check what a browser would get rather
 * than substrings of the markup: parsing fails on anything that is not well-formed XML.
 */
final class SvgDom
{
    static final String SVG_NAMESPACE = "http://www.w3.org/2000/svg";

    private final Document document;

    private SvgDom(final Document document)
    {
        this.document = document;
    }

    /**
     * @param svg a rendered report.
     * @return it parsed, namespace aware.
     * @throws Exception if it is not well-formed XML.
     */
    static SvgDom parse(final String svg) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return new SvgDom(factory.newDocumentBuilder().parse(new InputSource(new StringReader(svg))));
    }

    Element root()
    {
        return document.getDocumentElement();
    }

    /**
     * @param name     an SVG element's local name, e.g. "rect".
     * @param cssClass the class the report gave it, or null for every one.
     * @return those elements in document order.
     */
    List<Element> elements(final String name, final String cssClass)
    {
        final NodeList nodes = document.getElementsByTagNameNS(SVG_NAMESPACE, name);
        final List<Element> found = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final Element element = (Element)nodes.item(i);
            if (cssClass == null || element.getAttribute("class").equals(cssClass))
            {
                found.add(element);
            }
        }
        return found;
    }

    /**
     * @return the text of every element of that class, in document order.
     */
    List<String> texts(final String cssClass)
    {
        return elements("text", cssClass).stream().map(Element::getTextContent).toList();
    }

    /**
     * @param name     an element's local name.
     * @param cssClass its class.
     * @param prefix   how its tooltip (its title child) begins, e.g. a server's name and a colon.
     * @return the one such element.
     */
    Element titled(final String name, final String cssClass, final String prefix)
    {
        final List<Element> found = elements(name, cssClass).stream()
            .filter(element -> title(element).startsWith(prefix))
            .toList();
        if (found.size() != 1)
        {
            throw new AssertionError(found.size() + " " + name + "." + cssClass + " titled " + prefix);
        }
        return found.getFirst();
    }

    static String title(final Element element)
    {
        final NodeList titles = element.getElementsByTagNameNS(SVG_NAMESPACE, "title");
        return titles.getLength() == 0 ? "" : titles.item(0).getTextContent();
    }

    static double number(final Element element, final String attribute)
    {
        return Double.parseDouble(element.getAttribute(attribute));
    }

    /**
     * @return a polyline's points as x, y pairs.
     */
    static double[][] points(final Element polyline)
    {
        final String points = polyline.getAttribute("points").trim();
        if (points.isEmpty())
        {
            return new double[0][];
        }
        final String[] pairs = points.split(" ");
        final double[][] xy = new double[pairs.length][];
        for (int i = 0; i < pairs.length; i++)
        {
            final String[] parts = pairs[i].split(",");
            xy[i] = new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1])};
        }
        return xy;
    }
}
