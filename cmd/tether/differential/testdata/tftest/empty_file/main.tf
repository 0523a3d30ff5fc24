terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

