// Package pricefeed reads the cloud providers' public price data and turns it into catalog
// price rows for an overlay (`gpuguard pricing update`): the Azure Retail Prices API, the AWS
// Price List (the per-region bulk offer file, streamed, or a saved Query API response), and the
// GCP Cloud Billing Catalog API. It owns the parsing, the filtering to GPU instance types and
// the arithmetic that turns a provider's figures into one hourly price per instance type,
// region and purchase option; every row it returns names its source and the fetch date.
package pricefeed
