#!/usr/bin/env python3
"""Compares a Core Data model file with `docstore model --json`, reading the XML on its own.

Usage: compare_model.py CONTENTS_XML DOCSTORE_JSON
Prints one JSON object: {"differences": [...], "entities": n, "attributes": n, "relationships": n}.

The XML is read with xml.etree, independently of the Swift reader: every entity (name, parent,
abstract), every attribute (type, optional, transient, indexed, default, derivation, composite
elements), every stored relationship (destination, inverse, to-many, ordered, optional,
min/max, delete rule), uniqueness constraints, fetch indexes, compound indexes, fetched
properties, configurations and fetch request templates. Transient relationships are not part
of a loaded model (nothing stores them), so they are left out here too.
"""
import datetime
import json
import sys
import xml.etree.ElementTree as ET

REFERENCE = datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)
DELETE_RULES = {"Nullify": "nullify", "Cascade": "cascade", "Deny": "deny", "No Action": "noAction"}
INTEGERS = {"Integer 16", "Integer 32", "Integer 64"}
REALS = {"Double", "Float", "Decimal"}


def flag(element, name):
    return element.get(name, "NO").lower() in ("yes", "true", "1")


def iso(seconds):
    moment = REFERENCE + datetime.timedelta(seconds=seconds)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += ".%03d" % (moment.microsecond // 1000)
    return text + "Z"


def default(attribute, kind):
    if kind == "Date":
        if attribute.get("defaultDateTimeInterval") is not None:
            return iso(float(attribute.get("defaultDateTimeInterval")))
        text = attribute.get("defaultValueString")
        return iso(float(text)) if text is not None else None
    text = attribute.get("defaultValueString")
    if text is None or kind == "Composite":
        return None
    if kind in INTEGERS:
        return int(text)
    if kind in REALS:
        return float(text)
    if kind == "Boolean":
        return text.lower() in ("yes", "true", "1")
    return text


def attribute_record(attribute, composites, depth=0):
    kind = attribute.get("attributeType", "Undefined")
    elements = []
    if kind == "Composite" and depth < 32:
        composite = composites[attribute.get("composite")]
        elements = [attribute_record(element, composites, depth + 1) for element in composite.findall("attribute")]
    return {
        "name": attribute.get("name"),
        "type": kind,
        "optional": flag(attribute, "optional"),
        "transient": flag(attribute, "transient"),
        "indexed": flag(attribute, "indexed"),
        "default": default(attribute, kind),
        "derivation": attribute.get("derivationExpression") if flag(attribute, "derived") else None,
        "elements": elements,
    }


def relationship_record(relationship):
    to_many = flag(relationship, "toMany")
    maximum = relationship.get("maxCount")
    return {
        "name": relationship.get("name"),
        "destination": relationship.get("destinationEntity"),
        "inverse": relationship.get("inverseName"),
        "toMany": to_many,
        "ordered": flag(relationship, "ordered"),
        "optional": flag(relationship, "optional"),
        "minCount": int(relationship.get("minCount", "0")),
        "maxCount": (int(maximum) if maximum is not None else 0) if to_many else 1,
        "deleteRule": DELETE_RULES[relationship.get("deletionRule", "Nullify")],
    }


def fetch_request_record(request):
    return {"name": request.get("name"), "entity": request.get("entity"), "predicate": request.get("predicateString")}


def same(expected, actual):
    if isinstance(expected, float) or isinstance(actual, float):
        return isinstance(actual, (int, float)) and isinstance(expected, (int, float)) and abs(expected - actual) < 1e-9
    return expected == actual


def compare_attribute(expected, actual, where, differences):
    for key in ("name", "type", "optional", "transient", "indexed", "default", "derivation"):
        if not same(expected[key], actual.get(key)):
            differences.append("%s.%s: XML says %r, docstore %r" % (where, key, expected[key], actual.get(key)))
    stored = not expected["transient"] and expected["type"] != "Composite"
    if stored != (actual.get("column") is not None) and where.count(".") == 1:
        differences.append("%s: column %r for a %s attribute" % (where, actual.get("column"), "stored" if stored else "columnless"))
    actual_elements = {element["name"]: element for element in actual.get("elements", [])}
    if [e["name"] for e in expected["elements"]] != [e["name"] for e in actual.get("elements", [])]:
        differences.append("%s: elements %r, docstore %r" % (where, [e["name"] for e in expected["elements"]], list(actual_elements)))
    for element in expected["elements"]:
        if element["name"] in actual_elements:
            compare_attribute(element, actual_elements[element["name"]], where + "." + element["name"], differences)


def main():
    root = ET.parse(sys.argv[1]).getroot()
    with open(sys.argv[2]) as handle:
        document = json.load(handle)
    composites = {composite.get("name"): composite for composite in root.findall("composite")}
    loaded = {entity["name"]: entity for entity in document["entities"]}
    differences = []
    counts = {"entities": 0, "attributes": 0, "relationships": 0}
    entities = root.findall("entity")
    by_name = {entity.get("name"): entity for entity in entities}
    if sorted(entity.get("name") for entity in entities) != sorted(loaded):
        differences.append("entities: XML %r, docstore %r" % (sorted(e.get("name") for e in entities), sorted(loaded)))
    for entity in entities:
        name = entity.get("name")
        actual = loaded.get(name)
        if actual is None:
            continue
        counts["entities"] += 1
        if actual["parent"] != entity.get("parentEntity") or actual["abstract"] != flag(entity, "isAbstract"):
            differences.append("%s: parent/abstract %r/%r, docstore %r/%r" % (
                name, entity.get("parentEntity"), flag(entity, "isAbstract"), actual["parent"], actual["abstract"]))
        attributes = [attribute_record(a, composites) for a in entity.findall("attribute")]
        actual_attributes = {a["name"]: a for a in actual["attributes"]}
        if sorted(a["name"] for a in attributes) != sorted(actual_attributes):
            differences.append("%s attributes: XML %r, docstore %r" % (name, sorted(a["name"] for a in attributes), sorted(actual_attributes)))
        for attribute in attributes:
            if attribute["name"] in actual_attributes:
                counts["attributes"] += 1
                compare_attribute(attribute, actual_attributes[attribute["name"]], name + "." + attribute["name"], differences)
        relationships = [relationship_record(r) for r in entity.findall("relationship") if not flag(r, "transient")]
        actual_relationships = {r["name"]: r for r in actual["relationships"]}
        if sorted(r["name"] for r in relationships) != sorted(actual_relationships):
            differences.append("%s relationships: XML %r, docstore %r" % (name, sorted(r["name"] for r in relationships), sorted(actual_relationships)))
        for relationship in relationships:
            other = actual_relationships.get(relationship["name"])
            if other is None:
                continue
            counts["relationships"] += 1
            for key, value in relationship.items():
                if other.get(key) != value:
                    differences.append("%s.%s.%s: XML says %r, docstore %r" % (name, relationship["name"], key, value, other.get(key)))
            if relationship["toMany"] and relationship["inverse"] is None and other.get("inverseColumn") is None:
                differences.append("%s.%s: a to-many without an inverse has no hidden column" % (name, relationship["name"]))
        # An entity is bound by its own uniqueness constraints and its ancestors'.
        constraints, ancestor = [], entity
        while ancestor is not None:
            for u in ancestor.findall("uniquenessConstraints/uniquenessConstraint"):
                listed = [c.get("value") for c in u.findall("constraint")]
                if listed not in constraints:
                    constraints.append(listed)
            ancestor = by_name.get(ancestor.get("parentEntity"))
        if sorted(constraints) != sorted(actual["uniquenessConstraints"]):
            differences.append("%s uniqueness constraints: XML %r, docstore %r" % (name, constraints, actual["uniquenessConstraints"]))
        indexes = [{"name": i.get("name"), "elements": [{
            "property": e.get("property"), "expression": e.get("expression"), "type": e.get("type", "Binary"),
            "order": e.get("order", "ascending")} for e in i.findall("fetchIndexElement")]} for i in entity.findall("fetchIndex")]
        if indexes != actual["fetchIndexes"]:
            differences.append("%s fetch indexes: XML %r, docstore %r" % (name, indexes, actual["fetchIndexes"]))
        compound = [[i.get("value") for i in c.findall("index")] for c in entity.findall("compoundIndexes/compoundIndex")]
        if compound != actual["compoundIndexes"]:
            differences.append("%s compound indexes: XML %r, docstore %r" % (name, compound, actual["compoundIndexes"]))
        fetched = [{"name": f.get("name"), "optional": flag(f, "optional"),
                    "fetchRequest": fetch_request_record(f.find("fetchRequest")) if f.find("fetchRequest") is not None else None}
                   for f in entity.findall("fetchedProperty")]
        if fetched != actual["fetchedProperties"]:
            differences.append("%s fetched properties: XML %r, docstore %r" % (name, fetched, actual["fetchedProperties"]))
    configurations = [{"name": c.get("name"), "entities": [m.get("name") for m in c.findall("memberEntity")],
                       "usedWithCloudKit": flag(c, "usedWithCloudKit")} for c in root.findall("configuration")]
    if configurations != document["configurations"]:
        differences.append("configurations: XML %r, docstore %r" % (configurations, document["configurations"]))
    requests = [fetch_request_record(r) for r in root.findall("fetchRequest")]
    if requests != document["fetchRequests"]:
        differences.append("fetch requests: XML %r, docstore %r" % (requests, document["fetchRequests"]))
    counts["differences"] = differences
    print(json.dumps(counts))


main()
