from repoctx.extract import extract, imports_of
from repoctx.reconcile import declarations_of

TS = '''import type { Props } from "./types";

/** Shows things. */
export interface Shower {
  show(x: number): void;
}

export type Id = string | number;

export enum Color { Red, Green }

export abstract class Base<T> implements Shower {
  abstract show(x: number): void;
}

export function area(r: number): number;
export function area(r: any): number {
  return r * r;
}

namespace Geometry {
  export function unit() {}
}
'''

TSX = '''export const Card = ({ title }: { title: string }) => <Panel title={title} />;
'''


def test_typescript_declarations_are_classes_and_methods() -> None:
    found = {(s.fq_name, s.start_line): s for s in extract("src/shapes.ts", TS)}
    names = [fq for fq, _ in found]
    assert names == ["src/shapes.Shower", "src/shapes.Shower.show", "src/shapes.Id",
                     "src/shapes.Color", "src/shapes.Base", "src/shapes.Base.show",
                     "src/shapes.area", "src/shapes.area", "src/shapes.Geometry.unit"]
    shower = found[("src/shapes.Shower", 4)]
    assert (shower.kind, shower.end_line, shower.doc) == ("class", 6, "Shows things.")
    assert shower.signature == "interface Shower"
    assert found[("src/shapes.Base.show", 13)].kind == "method"
    decl = declarations_of("src/shapes.ts", extract("src/shapes.ts", TS), TS)["src/shapes.area"]
    assert (decl.start_line, decl.end_line) == (17, 19)  # the implementation, not the overload
    assert [i.specifier for i in imports_of("src/shapes.ts", TS)] == ["./types"]


def test_tsx_components_reference_the_elements_they_render() -> None:
    (card,) = extract("src/card.tsx", TSX)
    assert card.fq_name == "src/card.Card" and card.kind == "function"
    assert card.refs == ("Panel",)
