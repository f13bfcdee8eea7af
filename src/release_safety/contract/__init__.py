"""The contract: the artifact, index, evidence and upgrade-check models, their JSON Schemas, release
versions, and the finding and surface report they are made of."""
