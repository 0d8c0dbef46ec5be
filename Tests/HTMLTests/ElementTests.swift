import HTML
import Testing

/// How elements and their attributes are written.
struct ElementTests {
    @Test func anElementWritesItsAttributesInOrderAndClosesItsTag() {
        let node = a(.class("button"), .href("/mailboxes/inbox"), .id("edit")) { "Edit" }
        #expect(node.html == "<a class=\"button\" href=\"/mailboxes/inbox\" id=\"edit\">Edit</a>")
    }

    @Test func anEmptyElementStillHasAClosingTag() {
        #expect(div {}.html == "<div></div>")
        #expect(span(.class("x")) {}.html == "<span class=\"x\"></span>")
    }

    @Test func nestedElementsCloseInsideOut() {
        let node = ul(.class("list")) {
            li { a(.href("/messages/1")) { "One" } }
        }
        #expect(node.html == "<ul class=\"list\"><li><a href=\"/messages/1\">One</a></li></ul>")
    }

    @Test func voidElementsHaveNoClosingTag() {
        #expect(input(.type(.checkbox), .name("selected"), .value("3")).html
            == "<input type=\"checkbox\" name=\"selected\" value=\"3\">")
        #expect(meta(Attribute("charset", "utf-8")).html == "<meta charset=\"utf-8\">")
        #expect(link(.rel("stylesheet"), .href("/style.css")).html == "<link rel=\"stylesheet\" href=\"/style.css\">")
        for markup in [input().html, meta().html, link().html] {
            #expect(!markup.contains("</"))
            #expect(!markup.contains("/>"))
        }
    }

    @Test func aVoidElementWithoutAttributesIsJustItsTag() {
        #expect(input().html == "<input>")
    }

    @Test(arguments: [true, false])
    func aBooleanAttributeIsWrittenBareOnlyWhenOn(isOn: Bool) {
        let markup = input(.type(.checkbox), .checked(isOn), .disabled(isOn), .required(isOn)).html
        if isOn {
            #expect(markup == "<input type=\"checkbox\" checked disabled required>")
        } else {
            #expect(markup == "<input type=\"checkbox\">")
        }
    }

    @Test func booleanAttributesDefaultToOn() {
        #expect(button(.disabled()) { "Edit" }.html == "<button disabled>Edit</button>")
        #expect(input(.autofocus(), .hidden()).html == "<input autofocus hidden>")
        #expect(element("details", [.boolean("open")]) {}.html == "<details open></details>")
        #expect(element("details", [.boolean("open", false)]) {}.html == "<details></details>")
    }

    @Test func anOmittedBooleanLeavesNoStraySpace() {
        #expect(input(.checked(false), .name("a")).html == "<input name=\"a\">")
        #expect(input(.name("a"), .checked(false)).html == "<input name=\"a\">")
    }

    @Test func ariaAndDataAttributesGetTheirPrefix() {
        #expect(li(.aria("label", "Row"), .data("id", "7")) {}.html == "<li aria-label=\"Row\" data-id=\"7\"></li>")
    }

    @Test func numericAttributesAreWrittenAsDecimals() {
        #expect(input(.maxlength(200)).html == "<input maxlength=\"200\">")
        #expect(textarea(.rows(4), text: "").html == "<textarea rows=\"4\">\n</textarea>")
    }

    @Test(arguments: [
        (InputType.text, "text"), (.hidden, "hidden"), (.checkbox, "checkbox"), (.submit, "submit"),
        (.button, "button"), (.search, "search"), (.password, "password"),
    ])
    func inputTypesUseTheirHTMLName(type: InputType, name: String) {
        #expect(input(.type(type)).html == "<input type=\"\(name)\">")
    }

    @Test func postFormsSayMethodPost() {
        #expect(form(.methodPost, .action("/x")) {}.html == "<form method=\"post\" action=\"/x\"></form>")
    }

    @Test func aTextareaKeepsALeadingNewlineOfUserText() {
        // Parsers drop one newline right after <textarea>; ours absorbs it, so the user's survives.
        let markup = textarea(.name("body"), text: "\nsecond line").html
        #expect(markup == "<textarea name=\"body\">\n\nsecond line</textarea>")
    }

    @Test func aTextareaWithoutLeadingNewlineStartsWithExactlyOne() {
        #expect(textarea(.name("body"), text: "hello").html == "<textarea name=\"body\">\nhello</textarea>")
    }

    @Test func titleHoldsEscapedText() {
        #expect(title("Tom & Jerry").html == "<title>Tom &amp; Jerry</title>")
    }
}
