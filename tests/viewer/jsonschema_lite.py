# SPDX-License-Identifier: BSD-3-Clause
# jsonschema_lite.py — a JSON Schema validator for the subset of draft 2020-12
# that doc/report.schema.json uses (type, enum, const, properties, required,
# additionalProperties: false, items, minItems, maxItems, minimum, pattern,
# local $ref). A keyword it does not know is an error, so the schema cannot
# silently grow beyond what is checked. Python standard library only.
import re

ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}
KNOWN = ANNOTATIONS | {"type", "enum", "const", "properties", "required", "additionalProperties",
                       "items", "minItems", "maxItems", "minimum", "pattern", "$ref"}


class SchemaError(Exception):
    pass


def _type_ok(value, t):
    if t == "object":
        return isinstance(value, dict)
    if t == "array":
        return isinstance(value, list)
    if t == "string":
        return isinstance(value, str)
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "null":
        return value is None
    raise SchemaError("unknown type " + t)


def validate(value, schema, root=None, path="$", errors=None, limit=20):
    """Returns the list of violations (empty when valid)."""
    if root is None:
        root = schema
    if errors is None:
        errors = []
    if len(errors) >= limit:
        return errors
    unknown = set(schema) - KNOWN
    if unknown:
        raise SchemaError("%s: unsupported keywords %s" % (path, sorted(unknown)))
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            raise SchemaError("only local $ref: " + ref)
        target = root
        for part in ref[2:].split("/"):
            target = target[part]
        validate(value, target, root, path, errors, limit)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, t) for t in types):
            errors.append("%s: %r is not of type %s" % (path, value if not isinstance(value, (dict, list)) else type(value).__name__, types))
            return errors
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r not in %r" % (path, value, schema["enum"]))
    if "const" in schema and value != schema["const"]:
        errors.append("%s: %r != %r" % (path, value, schema["const"]))
    if isinstance(value, (int, float)) and not isinstance(value, bool) and "minimum" in schema:
        if value < schema["minimum"]:
            errors.append("%s: %r < minimum %r" % (path, value, schema["minimum"]))
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append("%s: %r does not match %s" % (path, value, schema["pattern"]))
    if isinstance(value, dict):
        for k in schema.get("required", []):
            if k not in value:
                errors.append("%s: missing required %r" % (path, k))
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                validate(v, props[k], root, path + "." + k, errors, limit)
            elif schema.get("additionalProperties") is False:
                errors.append("%s: unexpected property %r" % (path, k))
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append("%s: %d items < %d" % (path, len(value), schema["minItems"]))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append("%s: %d items > %d" % (path, len(value), schema["maxItems"]))
        if "items" in schema:
            for k, v in enumerate(value):
                validate(v, schema["items"], root, "%s[%d]" % (path, k), errors, limit)
                if len(errors) >= limit:
                    break
    return errors
