"""Publishing the dataset: its DCAT-AP description, schema.org markup and versioned releases."""
